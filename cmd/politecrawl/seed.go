package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newSeedCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	cmd := &cobra.Command{
		Use:   "seed (-c FILE | --state PATH) URL...",
		Short: "Add seed URLs to a crawl: through the running daemon, or into the state file",
		Long: `Adds URLs as seeds (depth 0). Each is still subject to scope, limits and
robots.txt. While a crawl holds the state file, seed posts them to it
(POST /seeds on its control socket, STATE.sock, then on http.listen if
that is set); otherwise it writes them into the state file for the next
run, with the scope of the config given by -c.

--state PATH alone (no config) works only while a crawl runs on PATH: the
state file does not keep the crawl's scope rules, so seeding a stopped
crawl needs its config (-c FILE).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, urls []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			add := addSeeds
			if f.config == "" {
				add = addSeedsToRunning
			}
			if cfg.Cluster.enabled() {
				add = func(cmd *cobra.Command, cfg *Config, urls []string) ([]crawler.SeedResult, error) {
					return clusterSeed(cmd.Context(), cfg, urls)
				}
			}
			res, err := add(cmd, cfg, urls)
			if err != nil {
				return err
			}
			var refused int
			for _, r := range res {
				// The URL first, as in a list of URLs: `cut -f1` gives them
				// back, and a reason with spaces stays one field.
				fmt.Fprintf(stdout, "%s\t%s\n", r.URL, r.Outcome)
				if r.Outcome == "out of scope" || strings.HasPrefix(r.Outcome, "invalid") {
					refused++
				}
			}
			if refused > 0 {
				return fmt.Errorf("seed: %d of %d URLs not added (out of scope or invalid; see above)", refused, len(res))
			}
			return nil
		},
	}
	addCommonFlags(cmd, &f)
	return cmd
}

// withoutSeeds is cc for a crawler that admits none of the config's seeds
// (they are the next run's to admit) but has the scope they give (the
// seeds' hosts by default, seed_prefix's prefixes).
func withoutSeeds(cc crawler.Config) crawler.Config {
	cc.Rules.Seeds, cc.Seeds = cc.Seeds, nil
	if cc.Rules.Seeds == nil {
		cc.Rules.Seeds = []string{}
	}
	return cc
}

func addSeeds(cmd *cobra.Command, cfg *Config, urls []string) ([]crawler.SeedResult, error) {
	db, err := storage.Open(cfg.State, storage.Options{Timeout: 300 * time.Millisecond})
	if errors.Is(err, storage.ErrLocked) {
		return postSeeds(cfg, urls)
	}
	if errors.Is(err, fs.ErrPermission) {
		return nil, stateFileError(cfg.State, err)
	}
	if err != nil {
		return nil, err // not "no state file": Open makes one for the first run
	}
	defer db.Close()
	// Only the URLs given are added now; the config's own seeds are
	// admitted by the next run, as always.
	cc := withoutSeeds(cfg.crawlerConfig(slog.New(slog.DiscardHandler)))
	c, err := crawler.New(db, cc)
	if err != nil {
		return nil, err
	}
	return c.AddSeedsOffline(urls)
}

// addSeedsToRunning is seed with --state alone: the crawl running on the
// state file decides with its own scope. With none running there is no
// scope to decide by (the state file does not keep the crawl's rules;
// the defaults' scope, the seeds' hosts, is empty without seeds), so
// seed refuses rather than call every URL out of scope, and it opens
// the file read-only: a path that names no state file is not made one.
func addSeedsToRunning(_ *cobra.Command, cfg *Config, urls []string) ([]crawler.SeedResult, error) {
	db, err := openForReading(cfg.State)
	if errors.Is(err, storage.ErrLocked) {
		return postSeeds(cfg, urls)
	}
	if err != nil {
		return nil, err
	}
	db.Close()
	return nil, usagef("seed --state %s: no crawl is running on it, and a state file does not keep the crawl's scope: "+
		"give the crawl's config with -c FILE to add URLs for its next run", cfg.State)
}

// postSeeds hands urls to the crawl running on cfg.State (POST /seeds).
func postSeeds(cfg *Config, urls []string) ([]crawler.SeedResult, error) {
	body, _ := json.Marshal(SeedRequest{URLs: urls})
	resp, err := apiOf(cfg).do("POST", "/seeds", "application/json", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out SeedResponse
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return nil, fmt.Errorf("a crawl is running on %s: POST /seeds: HTTP %d", cfg.State, resp.StatusCode)
	}
	return out.Results, nil
}
