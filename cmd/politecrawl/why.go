package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newWhyCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	cmd := &cobra.Command{
		Use:   "why -c FILE URL...",
		Short: "Say how a URL was, or would be, decided: scope rule, trap guard, host override, robots.txt, record",
		Long: `Prints, for each URL, the steps of the crawl's decision: its normalised
form, the scope rule that matched (with its line in the config file), the
trap guards, the hosts: override that applies, the robots.txt group and
rule (with its line), and the URL's record if the crawl has seen it.

While a crawl holds the state file, why asks it (GET /why?url= on its
control socket or http.listen), so the answer uses the rules it runs with;
otherwise it reads the state file with the config's rules.

In a cluster (cluster.* set) that is one node's view; why adds which node's
state it read, the URL's shard and the node holding it, and takes the
URL's record from the whole crawl's records in NATS, whichever node
decided it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, urls []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			var wrap func(func(string) (crawler.Why, error)) func(string) (crawler.Why, error)
			if cfg.Cluster.enabled() {
				var disconnect func()
				wrap, disconnect = clusterAsker(cmd.Context(), cfg)
				defer disconnect()
			}
			ask, done, err := whyAsker(cfg, f.config == "" && !cfg.hasScope())
			if err != nil {
				return err
			}
			defer done()
			if wrap != nil {
				ask = wrap(ask)
			}
			for _, u := range urls {
				w, err := ask(u)
				if err != nil {
					return err
				}
				printWhy(stdout, w)
			}
			return nil
		},
	}
	addCommonFlags(cmd, &f)
	return cmd
}

// whyAsker returns how to ask about a URL: the running crawl, or the
// state file opened here (closed by done). Before any crawl (no state
// file yet) the rules alone answer, with an empty state made in a
// temporary folder: asking creates no state file.
//
// Without a config (--state alone) a stopped crawl's rules are unknown: a
// state file does not keep them, and the defaults' scope (the seeds'
// hosts) is empty. The URL's record still says what the crawl did with
// it; the scope step and a verdict drawn from it say they are unknown
// (they said "out of scope" of every URL).
func whyAsker(cfg *Config, noConfig bool) (ask func(string) (crawler.Why, error), done func(), err error) {
	state, cleanup := cfg.State, func() {}
	if _, err := os.Stat(state); errors.Is(err, fs.ErrNotExist) {
		dir, err := os.MkdirTemp("", "politecrawl-why-")
		if err != nil {
			return nil, nil, err
		}
		state, cleanup = filepath.Join(dir, "empty.db"), func() { os.RemoveAll(dir) }
	}
	ask, offline, closeDB, err := openWhy(cfg, state)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if offline && noConfig {
		ask = withoutRules(ask)
	}
	return ask, func() { closeDB(); cleanup() }, nil
}

// hasScope reports whether c gives the crawl a scope: seeds (their hosts),
// or hosts, domains or prefixes to include (from the environment, say,
// when no file is given).
func (c *Config) hasScope() bool {
	return len(c.Seeds)+len(c.Scope.Hosts)+len(c.Scope.Domains)+len(c.Scope.Prefixes) > 0
}

// withoutRules marks what ask says from the crawl's rules as unknown.
func withoutRules(ask func(string) (crawler.Why, error)) func(string) (crawler.Why, error) {
	const unknown = "unknown: no crawl is running and no config was given (-c FILE); a state file does not keep the crawl's rules"
	return func(u string) (crawler.Why, error) {
		w, err := ask(u)
		for i, s := range w.Steps {
			if s.Step == "scope" {
				w.Steps[i].Result = unknown
			}
		}
		if w.Verdict == crawler.OutOfScopeVerdict {
			w.Verdict = unknown
		}
		return w, err
	}
}

// openWhy asks the crawl running on state, or reads state itself
// (offline) with cfg's rules.
func openWhy(cfg *Config, state string) (ask func(string) (crawler.Why, error), offline bool, done func(), err error) {
	db, err := storage.Open(state, storage.Options{Timeout: 300 * time.Millisecond})
	if errors.Is(err, storage.ErrLocked) {
		api := apiOf(cfg)
		return func(u string) (crawler.Why, error) { return whyFromCrawl(api, u) }, false, func() {}, nil
	}
	if err != nil {
		return nil, false, nil, stateFileError(state, err)
	}
	// The seeds shape the scope; none is admitted by asking.
	c, err := crawler.New(db, withoutSeeds(cfg.crawlerConfig(slog.New(slog.DiscardHandler))))
	if err != nil {
		db.Close()
		return nil, false, nil, err
	}
	return c.ExplainOffline, true, func() { db.Close() }, nil
}

func whyFromCrawl(api crawlAPI, u string) (crawler.Why, error) {
	var w crawler.Why
	resp, err := api.do("GET", "/why?url="+url.QueryEscape(u), "", nil)
	if err != nil {
		return w, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&w) != nil {
		return w, fmt.Errorf("a crawl is running: GET /why: HTTP %d", resp.StatusCode)
	}
	return w, nil
}

// serveWhy is GET /why?url=URL: the running crawl's explanation as JSON.
func serveWhy(c *crawler.Crawler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := r.URL.Query().Get("url")
		if u == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want ?url=URL"})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		why, err := c.Explain(ctx, u)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, why)
	}
}

// printWhy writes an explanation as aligned steps under the URL.
func printWhy(w io.Writer, why crawler.Why) {
	fmt.Fprintf(w, "%s\n", why.URL)
	for _, s := range why.Steps {
		fmt.Fprintf(w, "  %-14s %s\n", s.Step+":", s.Result)
	}
	fmt.Fprintf(w, "  %-14s %s\n", "verdict:", why.Verdict)
}
