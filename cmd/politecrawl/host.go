package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newHostCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "host",
		Short: "Pause or resume hosts of a crawl: through the running crawl, or in the state file",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newHostPauseCmd(stdout, stderr, true), newHostPauseCmd(stdout, stderr, false))
	return cmd
}

// hostPauseHelp is the Long help of `host pause` and `host resume`.
var hostPauseHelp = map[bool]string{
	true: `Pauses hosts (HOST as status --hosts shows it, host or host:port; a URL
stands for its host): the crawl asks them nothing until they are resumed; a
request under way finishes. The pause is kept in the state file, so it
outlasts a restart. A run without daemon.recrawl_interval does not wait for
a paused host: once only paused hosts have URLs left it ends, naming them
and how many URLs they hold.`,
	false: `Resumes hosts paused by 'host pause' or POST /hosts/HOST/pause (HOST as
status --hosts shows it, host or host:port; a URL stands for its host):
their queued URLs are fetched again, spaced as always. On a stopped crawl
the next run fetches what the pause held.`,
}

// hostPauseWhere is how both commands reach the crawl.
const hostPauseWhere = `

While a crawl holds the state file, it asks that crawl (POST /hosts/HOST/%[1]s
on its control socket, else http.listen), which logs it; otherwise it
writes the change into the state file and logs it itself. Prints a line per
host: the host, a tab, and "%[2]s" or "unknown host". Exit status 1 when a
host is unknown to the crawl.`

func newHostPauseCmd(stdout, stderr io.Writer, pause bool) *cobra.Command {
	var f commonFlags
	action, done, short := "resume", "resumed", "Resume paused hosts"
	if pause {
		action, done, short = "pause", "paused", "Pause hosts: the crawl asks them nothing until they are resumed"
	}
	cmd := &cobra.Command{
		Use:   action + " (-c FILE | --state PATH) HOST...",
		Short: short,
		Long:  hostPauseHelp[pause] + fmt.Sprintf(hostPauseWhere, action, done),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			if cfg.Cluster.enabled() {
				return usagef("host %s: not on a cluster; POST /hosts/HOST/%s to the http.listen of the node crawling the host", action, action)
			}
			hosts, err := hostArgs(args)
			if err != nil {
				return err
			}
			known, err := pauseHosts(cfg, hosts, pause, newLogger(stderr, cfg, new(slog.LevelVar)))
			unknown := 0
			for i, k := range known {
				outcome := done
				if !k {
					outcome, unknown = "unknown host", unknown+1
				}
				fmt.Fprintf(stdout, "%s\t%s\n", hosts[i], outcome)
			}
			if err != nil {
				return err
			}
			if unknown > 0 {
				return fmt.Errorf("host %s: %d of %d hosts unknown to the crawl on %s (see status --hosts for its hosts)",
					action, unknown, len(hosts), cfg.State)
			}
			return nil
		},
	}
	addCommonFlags(cmd, &f)
	return cmd
}

// hostArgs reads the host arguments: an authority as the crawl keys
// hosts, or a URL, which stands for its own. A bare host is normalised as
// an http URL's would be (lower case, no :80), so that Example.COM names
// the host the crawl keys as example.com; an empty one is a usage error.
func hostArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if strings.TrimSpace(a) == "" {
			return nil, usagef("an empty host argument")
		}
		u := a
		if !strings.Contains(a, "://") {
			u = "http://" + a
		}
		n, err := urlnorm.Normalise(u)
		if err != nil {
			return nil, usagef("%q: not a host or a URL: %v", a, err)
		}
		out = append(out, urlnorm.Authority(n))
	}
	return out, nil
}

// pauseHosts pauses or resumes hosts of the crawl on cfg.State, through
// the crawl that holds the file or in the file, and reports which the
// crawl knows, for as many hosts as it got to before an error.
func pauseHosts(cfg *Config, hosts []string, pause bool, log *slog.Logger) ([]bool, error) {
	if _, err := os.Stat(cfg.State); err != nil {
		return nil, stateFileError(cfg.State, err)
	}
	var known []bool
	// A run ends once only paused hosts have work, so pausing the last
	// busy host may end it before the next host's turn: those left go
	// into the file once the run lets go of it, within its stop's bound.
	deadline := time.Now().Add(cfg.Daemon.ShutdownTimeout + stopBackstop)
	for {
		db, err := storage.Open(cfg.State, storage.Options{Timeout: 300 * time.Millisecond})
		if errors.Is(err, storage.ErrLocked) {
			k, err := pauseLive(apiOf(cfg), hosts[len(known):], pause)
			known = append(known, k...)
			if errors.Is(err, errEnded) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			return known, err
		}
		if err != nil {
			return known, stateFileError(cfg.State, err)
		}
		k, err := pauseRecorded(db, cfg.State, hosts[len(known):], pause, log)
		return append(known, k...), err
	}
}

// pauseRecorded pauses or resumes hosts in the state file db, logs each
// change and closes db.
func pauseRecorded(db *storage.DB, state string, hosts []string, pause bool, log *slog.Logger) ([]bool, error) {
	defer db.Close()
	known := make([]bool, len(hosts))
	err := db.Update(func(tx *storage.Tx) error {
		for i, h := range hosts {
			var err error
			if known[i], err = frontier.PauseRecorded(tx, h, pause); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, h := range hosts {
		if known[i] {
			log.Info(pauseMessage(pause), "host", h, "by", "cli", "state", state)
		}
	}
	return known, db.Close()
}

// errEnded is a running crawl's failure to take a request, as when it
// ended before it could (crawler.ErrNotRunning): the state file may take
// it once the crawl let go of it.
var errEnded = errors.New("the running crawl did not take the request")

// pauseLive asks the running crawl to pause or resume each host, and
// reports which it knows, for as many hosts as it got to before an error.
func pauseLive(api crawlAPI, hosts []string, pause bool) ([]bool, error) {
	action := "resume"
	if pause {
		action = "pause"
	}
	api.by = "cli"
	known := make([]bool, 0, len(hosts))
	for _, h := range hosts {
		path := "/hosts/" + url.PathEscape(h) + "/" + action
		resp, err := api.do("POST", path, "", nil)
		if err != nil {
			// Gone as it ended, or not answering: either way the state
			// file tells, asked again.
			return known, fmt.Errorf("%w: %w", errEnded, err)
		}
		var answer struct{ Error string }
		json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&answer)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			known = append(known, true)
		case resp.StatusCode == http.StatusNotFound:
			known = append(known, false)
		case answer.Error == crawler.ErrNotRunning.Error():
			return known, errEnded
		default:
			return known, fmt.Errorf("a crawl is running on %s: POST %s: HTTP %d %s", api.state, path, resp.StatusCode, answer.Error)
		}
	}
	return known, nil
}
