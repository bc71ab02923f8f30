package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/spf13/cobra"
)

type robotsFlags struct {
	agent   string
	file    string
	url     string
	explain bool
	timeout time.Duration
}

func newRobotsCmd(stdout io.Writer) *cobra.Command {
	var f robotsFlags
	cmd := &cobra.Command{
		Use:   "robots --agent NAME (--file PATH | --url URL) TARGET...",
		Short: "Decide URLs against a robots.txt file, as the crawler would",
		Long: `Prints "allowed TARGET" or "disallowed TARGET" for each target.

A target is an absolute URL or a path with an optional query ("/a?b").
--agent is a product token (politecrawl) or a whole User-Agent header.
--url fetches robots.txt with RFC 9309's rules (status codes, up to 5
redirects) and says which outcome applied. --explain adds the deciding rule
and its line, the Content-Usage and Content-Signal lines that apply to an
allowed target and what they say of each use, and the Crawl-delay,
Request-rate and sitemaps for the agent.

Exit status: 0 when every target was decided, 2 on usage errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRobots(cmd, stdout, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "product token or User-Agent header to decide for (required)")
	fl.StringVar(&f.file, "file", "", "read robots.txt from this file")
	fl.StringVar(&f.url, "url", "", "fetch robots.txt from this URL (or a site URL: /robots.txt is used)")
	fl.BoolVar(&f.explain, "explain", false, "show the deciding rule, Crawl-delay, Request-rate and sitemaps")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "total time allowed for --url")
	return cmd
}

func runRobots(cmd *cobra.Command, w io.Writer, f robotsFlags, targets []string) error {
	if strings.TrimSpace(f.agent) == "" {
		return usagef("robots: --agent is required")
	}
	if (f.file == "") == (f.url == "") {
		return usagef("robots: give exactly one of --file or --url")
	}
	if len(targets) == 0 {
		return usagef("robots: give at least one TARGET (a URL or a path like /a?b)")
	}
	var r *robots.Robots
	if f.file != "" {
		body, err := os.ReadFile(f.file)
		if err != nil {
			return usagef("robots: read --file: %v", err)
		}
		r = robots.Parse(body)
	} else {
		u, err := robotsURL(f.url)
		if err != nil {
			return usagef("robots: --url: %v", err)
		}
		ctx := cmd.Context()
		client := &http.Client{
			Timeout:       f.timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		res := robotscache.Fetch(ctx, robotscache.Client{HTTP: client, Clock: time.Now}, u, f.agent)
		fmt.Fprintf(w, "robots.txt %s: %s\n", u, res.Reason())
		r = res.Robots
	}
	for _, t := range targets {
		printDecision(w, r, f, t)
	}
	if f.explain {
		printRecords(w, r, f.agent)
	}
	return nil
}

// robotsURL turns a site or robots.txt URL into the robots.txt URL.
func robotsURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}).String(), nil
}

func printDecision(w io.Writer, r *robots.Robots, f robotsFlags, target string) {
	d := r.Explain(f.agent, target)
	verdict := "disallowed"
	if d.Allowed {
		verdict = "allowed"
	}
	fmt.Fprintf(w, "%s %s\n", verdict, target)
	if !f.explain {
		return
	}
	switch {
	case d.Scope == robots.ScopeRobotsTxt:
		fmt.Fprintf(w, "  /robots.txt itself is always allowed\n")
	case d.Scope == robots.ScopeNone:
		fmt.Fprintf(w, "  no group applies to this agent and there is no * group: everything allowed\n")
	case d.Rule == nil:
		fmt.Fprintf(w, "  no rule matched %q in the %s: allowed\n", d.Path, groupName(d.Scope))
	default:
		verb := "Disallow"
		if d.Rule.Allow {
			verb = "Allow"
		}
		fmt.Fprintf(w, "  rule %q at line %d, %s, matched %q\n", verb+": "+d.Rule.Pattern, d.Rule.Line, groupName(d.Scope), d.Path)
	}
	if d.Allowed {
		printUses(w, r, f.agent, target)
	}
}

func groupName(s robots.Scope) string {
	if s == robots.ScopeGlobal {
		return "* group (no group names this agent)"
	}
	return "group for this agent"
}

func printRecords(w io.Writer, r *robots.Robots, agent string) {
	if d, ok := r.CrawlDelay(agent); ok {
		fmt.Fprintf(w, "crawl-delay: %v\n", d)
	} else {
		fmt.Fprintf(w, "crawl-delay: none\n")
	}
	rates := r.RequestRates(agent)
	if len(rates) == 0 {
		fmt.Fprintf(w, "request-rate: none\n")
	}
	for _, rt := range rates {
		win := ""
		if !rt.Window.IsZero() {
			win = fmt.Sprintf(" between %s and %s UTC", clock(rt.Window.Start), clock(rt.Window.End))
		}
		fmt.Fprintf(w, "request-rate: %d per %v (one every %v)%s\n", rt.Requests, rt.Per, rt.Interval(), win)
	}
	sm := r.Sitemaps()
	if len(sm) == 0 {
		fmt.Fprintf(w, "sitemaps: none\n")
	}
	for _, s := range sm {
		fmt.Fprintf(w, "sitemap: %s\n", s)
	}
}

func clock(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60)
}
