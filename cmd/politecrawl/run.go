package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/metrics"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
)

// commonFlags are the flags every config-reading command shares; the
// bound ones override the config file and the environment.
type commonFlags struct {
	config    string
	logFormat string
	logLevel  string
	state     string
	fullCheck bool // run only: storage.Options.FullCheck
}

var flagBinds = map[string]string{"log.format": "log-format", "log.level": "log-level", "state": "state",
	"politeness.robots_retries": "robots-retries", "politeness.robots_retry_delay": "robots-retry-delay"}

func addCommonFlags(cmd *cobra.Command, f *commonFlags) {
	cmd.Flags().StringVarP(&f.config, "config", "c", "", "config file (YAML); see config.example.yaml")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "log format: text or json (overrides log.format)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn, error (overrides log.level)")
	cmd.Flags().StringVar(&f.state, "state", "", "state file (overrides state)")
}

func (f *commonFlags) load(cmd *cobra.Command) (*Config, error) {
	path := f.config
	switch {
	case f.config == "" && cmd.Name() == "run":
		return nil, usagef("run: -c FILE is required")
	case f.config == "" && f.state == "":
		return nil, usagef("%s: -c FILE or --state PATH is required", cmd.Name())
	}
	// With --state alone: the defaults, with this state file.
	cfg, err := loadConfig(path, cmd.Flags(), flagBinds)
	if err == nil && cmd.Name() != "run" {
		warnUnknownVariables(cmd.ErrOrStderr(), cfg) // run logs them (setupOutput)
	}
	return cfg, err
}

// warnUnknownVariables writes a warning line for each POLITECRAWL_*
// variable that reaches no config key.
func warnUnknownVariables(w io.Writer, cfg *Config) {
	for _, name := range cfg.unknownEnv {
		fmt.Fprintf(w, "politecrawl: warning: %s\n", unknownVariableWarning(name))
	}
}

// newLogger builds the slog logger; its level can change live through
// level.
func newLogger(w io.Writer, c *Config, level *slog.LevelVar) *slog.Logger {
	l, _ := parseLevel(c.Log.Level)
	level.Set(l)
	opts := &slog.HandlerOptions{Level: level}
	if c.Log.Format == "json" {
		// Durations as "1.5s", not integer nanoseconds.
		opts.ReplaceAttr = func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindDuration {
				return slog.String(a.Key, a.Value.Duration().String())
			}
			return a
		}
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f commonFlags
	cmd := &cobra.Command{
		Use:   "run -c FILE",
		Short: "Crawl, resuming from the state file if it exists",
		Long: `Crawls the seeds of the config file politely, recording everything in the
state file. If the state file exists the crawl resumes where it stopped.
Without daemon.recrawl_interval it exits 0 when the crawl is drained
(nothing queued, in flight or waiting on a retry); URLs queued on hosts
paused by the operator do not keep it running: it ends, logging how many
URLs which paused hosts hold and the 'politecrawl host resume' command
that frees them. With daemon.recrawl_interval it keeps rechecking pages.
SIGINT/SIGTERM: stop, finish or re-queue in-flight fetches, close the
state file, exit 0. SIGHUP: re-read the config file and
apply seeds, scope, delays, workers and log level live.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			d := &daemon{cmd: cmd, flags: &f, cfg: cfg, stderr: stderr, level: new(slog.LevelVar)}
			return d.run()
		},
	}
	addCommonFlags(cmd, &f)
	cmd.Flags().Int("robots-retries", 3, "retries of an unreachable robots.txt for this run (overrides politeness.robots_retries; 0 ends a batch at once, the next run retries)")
	cmd.Flags().Duration("robots-retry-delay", 15*time.Second, "first robots.txt retry delay, doubling (overrides politeness.robots_retry_delay)")
	cmd.Flags().BoolVar(&f.fullCheck, "full-check", false, "run the full state file consistency check on open, whatever its size")
	return cmd
}

// daemon is one `run`: the crawl plus its endpoint, signals and display.
type daemon struct {
	cmd      *cobra.Command
	flags    *commonFlags
	cfg      *Config
	stderr   io.Writer
	level    *slog.LevelVar
	log      *slog.Logger
	progress *progressLine // nil unless stderr is a terminal
}

// notice logs a daemon-level message at info. On a terminal, where the
// progress line replaces info logging, it is printed above that line.
func (d *daemon) notice(msg string, args ...any) {
	if d.progress != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", time.Now().Format(time.TimeOnly), msg)
		for i := 0; i+1 < len(args); i += 2 {
			fmt.Fprintf(&b, " %v=%v", args[i], args[i+1])
		}
		fmt.Fprintln(d.progress, b.String())
		return
	}
	d.log.Info(msg, args...)
}

func (d *daemon) run() error {
	cfg := d.cfg
	if len(cfg.Seeds) == 0 {
		return usagef("config %s: seeds: give at least one URL to start from", d.flags.config)
	}
	progress := d.setupOutput()
	db, err := d.openState()
	if err != nil {
		return err
	}
	stuck := false
	defer func() {
		if !stuck {
			db.Close()
		}
	}()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cc := cfg.crawlerConfig(d.log)
	cc.Metrics = metrics.New(reg)
	cc.ResumeHint = d.resumeCommand()
	if cc.Archive, err = cfg.openArchive(d.log); err != nil {
		return err
	}
	if cc.Archive != nil {
		defer cc.Archive.Close() // after Run; the clean path closes it below
	}
	if progress != nil {
		cc.Observe = progress.observe
	}
	node, err := cfg.joinCluster(d.cmd.Context(), &cc, d.log, reg)
	if err != nil {
		return err
	}
	defer node.close() // after the engine stopped: its last outcomes go too
	c, err := crawler.New(db, cc)
	if err != nil {
		return err
	}
	// From here node.close reads the outcomes to hand over from db,
	// whatever fails next.
	node.attach(c, db)
	stopAPI, err := d.serveAPIs(newAPI(c, db, reg, d.notice))
	if err != nil {
		return err
	}
	defer stopAPI()
	ctx := d.cmd.Context()
	hup := make(chan os.Signal, 1) // before the crawl starts: SIGHUP's default ends the process
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	done := make(chan error, 1)
	crawlCtx, drained := context.WithCancel(ctx)
	defer drained()
	go func() { done <- c.Run(crawlCtx) }()
	if node != nil {
		// The whole crawl's end, not this node's frontier, stops a node.
		node.run(ctx, drained, d.log)
	}
	stopProgress := func() {}
	if progress != nil {
		stopProgress = progress.run(c)
		defer stopProgress()
	}
	d.notice("crawl starting", "state", cfg.State, "seeds", len(cfg.Seeds), "workers", cfg.Workers,
		"default_delay", cfg.Politeness.DefaultDelay, "recrawl_interval", cfg.Daemon.RecrawlInterval, "user_agent", cfg.Agent.UserAgent)
	if stuck, err = d.waitForEnd(ctx, done, hup, c); err != nil {
		return err
	}
	d.summary(db, cc.ResumeHint, stopProgress)
	if cc.Archive != nil {
		if err := cc.Archive.Close(); err != nil {
			return err
		}
	}
	node.close() // hands the shards over, reading the state file
	return db.Close()
}

// summary is the run's last line: its URLs by outcome and, when paused
// hosts hold some queued, how many on which hosts and how to resume them
// (a run that ends so has not crawled everything: see frontier.Held). On
// a terminal it is the last line drawn: the progress display is stopped
// (stopProgress) first, else it would be redrawn under it from a status
// taken before the end.
func (d *daemon) summary(db *storage.DB, resume string, stopProgress func()) {
	stopProgress()
	var counts map[storage.State]int
	var held frontier.Held
	err := db.View(func(tx *storage.Tx) (err error) {
		counts = tx.Counts()
		held, err = frontier.ReadHeld(tx)
		return err
	})
	args := []any{"fetched", counts[storage.Fetched], "disallowed", counts[storage.Disallowed],
		"failed", counts[storage.Failed], "skipped", counts[storage.Skipped]}
	if err != nil {
		d.log.Error("crawl stopped: paused hosts not read", "error", err)
	}
	if held.Any() {
		args = append(args, held.LogAttrs(resume)...)
	}
	d.notice("crawl stopped", args...)
}

// resumeCommand is the command that resumes a paused host of this run's
// crawl, its hosts left out: the run's -c, and --state when the state
// file is not the config file's (the flag, or POLITECRAWL_STATE, which the
// shell the command is pasted into may not have). None for a cluster
// node: `host` refuses a cluster's config (a node's pause is its own;
// POST /hosts/HOST/resume on a running node ends it).
func (d *daemon) resumeCommand() string {
	if d.cfg.Cluster.enabled() {
		return ""
	}
	cmd := "politecrawl host resume -c " + shellQuote(d.flags.config)
	if d.flags.state != "" || os.Getenv("POLITECRAWL_STATE") != "" {
		cmd += " --state " + shellQuote(d.cfg.State)
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune(shellSafe, r) }) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafe are the characters a shell word may hold unquoted.
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-"

// waitForEnd waits until the crawl's Run returns its error on done,
// reloading the configuration on each SIGHUP from hup. After a stop signal it waits
// within the shutdown timeout and a backstop: past that it reports stuck
// and an error (the crawl's goroutines may still hold the state file).
func (d *daemon) waitForEnd(ctx context.Context, done <-chan error, hup <-chan os.Signal, c *crawler.Crawler) (stuck bool, err error) {
	stopping, deadline := ctx.Done(), (<-chan time.Time)(nil)
	for {
		select {
		case <-stopping:
			// The crawl answers within the shutdown grace plus its stop
			// margin; this is the backstop should anything block.
			stopping, deadline = nil, time.After(d.cfg.Daemon.ShutdownTimeout+stopBackstop)
		case <-deadline:
			return true, fmt.Errorf("did not stop within %v of the signal; exiting anyway (the state file is safe: the next run resumes as after a crash)",
				d.cfg.Daemon.ShutdownTimeout+stopBackstop)
		case err := <-done:
			return false, err
		case <-hup:
			d.reload(c)
		}
	}
}

// serveAPIs serves api on the state file's socket and, if configured, on
// http.listen; stop ends both.
func (d *daemon) serveAPIs(api http.Handler) (stop func(), err error) {
	stopSocket, err := serveSocket(d.cfg.State, api, d.log)
	if err != nil {
		return nil, err
	}
	if d.cfg.HTTP.Listen == "" {
		return stopSocket, nil
	}
	stopHTTP, err := serveAPI(d.cfg.HTTP.Listen, requireToken(api, d.cfg.HTTP.Token), d.log)
	if err != nil {
		stopSocket()
		return nil, err
	}
	return func() { stopHTTP(); stopSocket() }, nil
}

// setupOutput makes the daemon's logger: on a terminal, with text logs,
// behind a progress line (returned) that replaces per-fetch lines.
func (d *daemon) setupOutput() *progressLine {
	logOut := d.stderr
	var progress *progressLine
	if isTerminal(d.stderr) && d.cfg.Log.Format == "text" {
		progress = newProgressLine(d.stderr)
		logOut = progress
		d.progress = progress
	}
	d.log = newLogger(logOut, d.cfg, d.level)
	if progress != nil && d.level.Level() <= slog.LevelInfo {
		d.level.Set(slog.LevelWarn)
	}
	for _, name := range d.cfg.unknownEnv {
		d.log.Warn(unknownVariableWarning(name))
	}
	return progress
}

// openState opens the crawl's state file, making its directory on a
// first run (as it makes the file, and its backup, socket and WARC files
// beside it). Open refuses at once a file another crawl holds; the
// timeout is for the brief read of a status or export.
//
// A command that writes the file of a stopped crawl (seed, host pause)
// holds its lock for milliseconds, and a run starting then waits for it,
// up to briefLockWait, rather than fail as if a crawl held the file (13 of
// 60 runs started beside a loop of host pause did). A crawl serves its
// control socket for as long as it holds the file: when that answers,
// the run is refused at once; a crawl still starting (its socket not
// served yet: waiting for NATS, loading its frontier), or a long export,
// is refused after briefLockWait.
func (d *daemon) openState() (*storage.DB, error) {
	state := d.cfg.State
	if err := os.MkdirAll(filepath.Dir(state), 0o750); err != nil {
		return nil, fmt.Errorf("state %s: %w", state, err)
	}
	deadline := time.Now().Add(briefLockWait)
	for {
		db, err := storage.Open(state, storage.Options{Timeout: time.Second, FullCheck: d.flags.fullCheck, BackupEvery: 6 * time.Hour})
		if !errors.Is(err, storage.ErrLocked) {
			return db, err
		}
		if crawlServes(state) || time.Now().After(deadline) {
			return nil, fmt.Errorf("state %s is in use by another politecrawl run (a crawl or daemon on this state file): "+
				"stop that one first, or give this run another state file; `politecrawl status` shows how it is doing", state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// briefLockWait is how long a run waits for a state file locked by a
// command that is not a crawl (see openState).
const briefLockWait = 2 * time.Second

// crawlServes reports whether a crawl answers on state's control socket.
func crawlServes(state string) bool {
	c, err := net.DialTimeout("unix", controlSocket(state), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// stopBackstop is how long past daemon.shutdown_timeout a stop may take
// before run gives up waiting and exits.
const stopBackstop = 10 * time.Second

// reload re-reads the config file on SIGHUP and applies what can change
// live; it logs what changed and what needs a restart.
func (d *daemon) reload(c *crawler.Crawler) {
	next, err := d.flags.load(d.cmd)
	if err != nil {
		d.log.Error("SIGHUP: config not reloaded", "error", err)
		return
	}
	old := d.cfg
	ctx := d.cmd.Context()
	changes, err := c.Reconfigure(ctx, crawler.Live{Seeds: next.Seeds, Scope: next.Scope.Hosts, Rules: next.scopeRules(), Hosts: next.file.overrides,
		DefaultDelay: next.Politeness.DefaultDelay, MaxDelay: next.Politeness.MaxDelay, Workers: next.Workers})
	if err != nil {
		d.log.Error("SIGHUP: reconfigure", "error", err)
		return
	}
	if next.Log.Level != old.Log.Level {
		l, _ := parseLevel(next.Log.Level)
		d.level.Set(l)
		changes = append(changes, fmt.Sprintf("log.level %s -> %s", old.Log.Level, next.Log.Level))
	}
	if next.Workers > old.Workers {
		// Idle connections were fitted to the open-file limit for the
		// old number of workers (fitIdleConns); the pool cannot shrink
		// live.
		quiet := slog.New(slog.DiscardHandler)
		if limit, ok := openFileLimit(); ok {
			was := fitIdle(old.Network.IdleConns, old.Workers, limit, ok, quiet)
			if now := fitIdle(old.Network.IdleConns, next.Workers, limit, ok, quiet); now < was {
				d.log.Warn("SIGHUP: more workers than the open-file limit leaves room for beside the idle connections kept; restart to fit them, or raise the limit",
					"workers", next.Workers, "idle_connections", was, "open_file_limit", limit)
			}
		}
	}
	live := appliedLive(old, next)
	restart := restartNeeded(live, next)
	d.cfg = live
	d.notice("SIGHUP: config reloaded", "applied", changes, "need_restart", restart)
}

// appliedLive is cur with the keys a reload applies live taken from next
// (README's "Change settings live" names them); next's other keys wait
// for a restart.
func appliedLive(cur, next *Config) *Config {
	live := *cur
	live.Seeds, live.Scope.Hosts, live.Politeness.DefaultDelay, live.Politeness.MaxDelay, live.Workers, live.Log.Level =
		next.Seeds, next.Scope.Hosts, next.Politeness.DefaultDelay, next.Politeness.MaxDelay, next.Workers, next.Log.Level
	live.liveScope(next)
	return &live
}

// restartNeeded lists the keys (as in the config file: daemon.shutdown_timeout)
// whose new values only a restart applies: every key that differs between
// cur, which holds what the reload applied live, and next.
func restartNeeded(cur, next *Config) []string {
	var out []string
	diffKeys("", reflect.ValueOf(*cur), reflect.ValueOf(*next), &out)
	sort.Strings(out)
	return out
}

// diffKeys appends to out the config keys under prefix whose values
// differ between a and b, structs of the same type, walking sections by
// their mapstructure names.
func diffKeys(prefix string, a, b reflect.Value, out *[]string) {
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("mapstructure"), ",")[0]
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if prefix != "" {
			name = prefix + "." + name
		}
		fa, fb := a.Field(i), b.Field(i)
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Time]() {
			diffKeys(name, fa, fb, out)
			continue
		}
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			*out = append(*out, name)
		}
	}
}
