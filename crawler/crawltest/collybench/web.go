package main

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// web is BenchmarkCrawl's test web: hosts h0..hN-1, each a binary tree of
// pages that also link the next host's root.
type web struct {
	*crawltest.Web
	seed  string   // the first host's root
	scope []string // every host's host:port
}

func newWeb(hosts, pages int, latency time.Duration) *web {
	w := &web{Web: crawltest.NewWeb()}
	names := make([]string, hosts)
	for i := range names {
		names[i] = fmt.Sprintf("h%d", i)
	}
	for i, n := range names {
		h := w.AddTree(n, pages, "User-agent: *\nDisallow: /private/\n", latency, names[(i+1)%hosts])
		w.scope = append(w.scope, h.Authority())
	}
	w.seed = w.Host(names[0]).URL("/")
	return w
}

// result reads the crawl's outcome from the servers' own logs.
func (w *web) result(elapsed time.Duration) result {
	r := result{elapsed: elapsed}
	for _, h := range w.Hosts() {
		seen := map[string]bool{}
		for _, req := range h.Log() {
			r.requests++
			if req.Path == "/robots.txt" {
				r.robots++
			}
			if req.Path != "/robots.txt" && req.Status == 200 && !seen[req.Path] {
				seen[req.Path] = true
				r.pages++
			}
		}
		r.maxFlight = max(r.maxFlight, h.MaxInFlight())
	}
	return r
}
