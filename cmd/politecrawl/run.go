package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

// commonFlags are the flags every config-reading command shares; the
// bound ones override the config file and the environment.
type commonFlags struct {
	config    string
	logFormat string
	logLevel  string
	state     string
}

var flagBinds = map[string]string{"log.format": "log-format", "log.level": "log-level", "state": "state"}

func addCommonFlags(cmd *cobra.Command, f *commonFlags) {
	cmd.Flags().StringVarP(&f.config, "config", "c", "", "config file (YAML); see config.example.yaml")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "log format: text or json (overrides log.format)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn, error (overrides log.level)")
	cmd.Flags().StringVar(&f.state, "state", "", "state file (overrides state)")
}

func (f *commonFlags) load(cmd *cobra.Command) (*Config, error) {
	if f.config == "" {
		return nil, usagef("%s: -c FILE is required", cmd.Name())
	}
	return loadConfig(f.config, cmd.Flags(), flagBinds)
}

func newLogger(w io.Writer, c *Config) *slog.Logger {
	level, _ := parseLevel(c.Log.Level)
	opts := &slog.HandlerOptions{Level: level}
	if c.Log.Format == "json" {
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
Exits 0 when the crawl is drained (nothing queued, in flight or waiting on a
retry) and after SIGINT/SIGTERM, once in-flight fetches are finished or
re-queued and the state file is closed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			return runCrawl(cmd, cfg, newLogger(stderr, cfg), nil)
		},
	}
	addCommonFlags(cmd, &f)
	return cmd
}

// runCrawl opens the state file, runs the crawl to the end or to a signal,
// and closes the file.
func runCrawl(cmd *cobra.Command, cfg *Config, log *slog.Logger, observe func(crawler.Event)) error {
	if len(cfg.Seeds) == 0 {
		return usagef("config: seeds: give at least one URL to start from")
	}
	db, err := storage.Open(cfg.State, storage.Options{Timeout: time.Second})
	if errors.Is(err, storage.ErrLocked) {
		return fmt.Errorf("%s: another politecrawl process is running on it", cfg.State)
	}
	if err != nil {
		return err
	}
	cc := cfg.crawlerConfig(log)
	cc.Observe = observe
	c, err := crawler.New(db, cc)
	if err != nil {
		db.Close()
		return err
	}
	log.Info("crawl starting", "state", cfg.State, "seeds", len(cfg.Seeds), "workers", cfg.Workers,
		"default_delay", cfg.Politeness.DefaultDelay, "user_agent", cfg.Agent.UserAgent)
	runErr := c.Run(cmd.Context())
	var counts map[storage.State]int
	db.View(func(tx *storage.Tx) error { counts = tx.Counts(); return nil })
	if err := db.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return runErr
	}
	log.Info("crawl stopped", "queued", counts[storage.Queued], "fetched", counts[storage.Fetched],
		"disallowed", counts[storage.Disallowed], "failed", counts[storage.Failed], "skipped", counts[storage.Skipped])
	return nil
}
