package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/demo"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newDemoCmd(stdout, stderr io.Writer) *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Crawl a small embedded site on loopback and explain every decision",
		Long: `Starts an embedded demo site on a random loopback port (its own robots.txt
with a Crawl-delay and a disallowed area, pages with meta noindex and
nofollow, a rel=ugc link, a redirect, a PDF with X-Robots-Tag, and a sitemap
listing a page no page links to) and crawls it with the default settings,
sitemaps on, into a temporary state file, printing each decision as it
happens and a summary at the end.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd, stdout, keep)
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary state file and print its path")
	return cmd
}

func runDemo(cmd *cobra.Command, w io.Writer, keep bool) error {
	site := demo.Site()
	defer site.Close()
	host := site.Host("demo")
	dir, err := os.MkdirTemp("", "politecrawl-demo-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	cfg, err := loadConfig("", cmd.Flags(), nil)
	if err != nil {
		return err
	}
	warnUnknownVariables(cmd.ErrOrStderr(), cfg)
	cfg.Seeds = []string{host.URL("/")}
	cfg.State = filepath.Join(dir, "demo.db")
	cfg.Network.AllowPrivate = true // the demo site is on loopback
	// Its robots.txt declares a sitemap, which lists a page no page
	// links to: reading it shows sitemap seeding at work (off by default).
	cfg.Sitemaps = true

	fmt.Fprintf(w, "Demo site at %s. Its robots.txt:\n\n%s\n", host.URL("/"), indent(demo.Robots))
	fmt.Fprintf(w, "Crawling as %q with default settings (default_delay %v; the site asks for Crawl-delay 0.5s),\n"+
		"and sitemaps: true, so the sitemap its robots.txt declares is read and its URLs queued.\n\n",
		cfg.Agent.UserAgent, cfg.Politeness.DefaultDelay)
	observe := func(e crawler.Event) {
		path := strings.TrimPrefix(e.URL, host.URL(""))
		switch e.State {
		case "fetched":
			fmt.Fprintf(w, "  fetched     %-22s HTTP %d\n", path, e.Status)
		case "retry":
			fmt.Fprintf(w, "  retry       %-22s %s\n", path, e.Reason)
		default:
			fmt.Fprintf(w, "  %-11s %-22s %s\n", e.State, path, e.Reason)
		}
	}
	if err := demoCrawl(cmd, cfg, observe); err != nil {
		return err
	}
	if err := demoSummary(w, cfg.State, host.URL("")); err != nil {
		return err
	}
	requests := host.Log()
	fmt.Fprintf(w, "\nThe site saw %d requests, robots.txt first, one at a time, at least %v apart (smallest gap %v).\n",
		len(requests), cfg.Politeness.DefaultDelay, host.MinGap().Round(1e6))
	if keep {
		fmt.Fprintf(w, "State file kept at %s\n", cfg.State)
	}
	return nil
}

func demoSummary(w io.Writer, state, base string) error {
	db, err := storage.OpenReadOnly(state, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	byState := map[storage.State][]string{}
	err = db.View(func(tx *storage.Tx) error {
		return tx.ForEachURL(func(r *storage.URLRecord) error {
			path := strings.TrimPrefix(r.URL, base)
			line := path
			switch {
			case r.State == storage.Fetched && r.Status >= 300 && r.Status < 400:
				line += fmt.Sprintf(" (HTTP %d, redirect followed as a new URL)", r.Status)
			case r.State == storage.Fetched:
				var notes []string
				if r.Title != "" {
					notes = append(notes, fmt.Sprintf("%q", r.Title))
				}
				if r.NoIndex {
					notes = append(notes, "noindex: fetched, content not kept")
				}
				if r.NoFollow {
					notes = append(notes, "nofollow: links not followed")
				}
				if r.DiscoveredVia == "sitemap" {
					notes = append(notes, "found in the sitemap, linked from no page")
				}
				if len(notes) > 0 {
					line += " (" + strings.Join(notes, "; ") + ")"
				}
			default:
				line += ": " + r.Error
			}
			byState[r.State] = append(byState[r.State], line)
			return nil
		})
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSummary\n")
	for _, s := range storage.States {
		lines := byState[s]
		if len(lines) == 0 {
			continue
		}
		sort.Strings(lines)
		fmt.Fprintf(w, "  %s: %d\n", s, len(lines))
		for _, l := range lines {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	fmt.Fprintf(w, "  never requested: /secret-plan (linked only from a nofollow page), /spam-link (rel=ugc)\n")
	return nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

// demoCrawl runs the demo's crawl to the end, quietly but for observe.
func demoCrawl(cmd *cobra.Command, cfg *Config, observe func(crawler.Event)) error {
	db, err := storage.Open(cfg.State, storage.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	cc := cfg.crawlerConfig(slog.New(slog.DiscardHandler))
	cc.Observe = observe
	c, err := crawler.New(db, cc)
	if err != nil {
		return err
	}
	if err := c.Run(cmd.Context()); err != nil {
		return err
	}
	return db.Close()
}
