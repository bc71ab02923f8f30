package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/storage"
)

// BenchmarkCrawl crawls 50 hosts of 200 pages each with no delays (the
// schedule, robots.txt checks and per-result transactions all still run)
// and reports pages/s. The state file is synced on every commit, as in
// production. Hosts are found through links: each page links the next
// host's root. crawler/crawltest/collybench runs colly on the same web.
func BenchmarkCrawl(b *testing.B) {
	benchCrawl(b, 50, 200, 0, false)
}

// BenchmarkCrawlSlowServers is the web `make compare` crawls by default
// (the measurement): 50 hosts of 400 pages, each page taking the
// server 1 ms. A host's turn then costs a server's latency too, so what
// counts is how soon its next request leaves after a response.
func BenchmarkCrawlSlowServers(b *testing.B) {
	benchCrawl(b, 50, 400, time.Millisecond, false)
}

// BenchmarkCrawl2000Hosts crawls 2,000 hosts of 3 pages each, every root a
// seed, with no delays: per-host work (a robots.txt fetch and parse, a new
// connection, scheduling across many hosts) weighs as much as the pages.
// About 2,000 loopback servers and as many connections: Go raises the
// process's open-file limit to its hard limit, which must allow that.
func BenchmarkCrawl2000Hosts(b *testing.B) {
	benchCrawl(b, 2000, 3, 0, true)
}

// benchCrawl crawls hosts x pages; with watch > 0, a status snapshot is
// taken every watch while it runs, as an open console would ask for one.
func benchCrawl(b *testing.B, hosts, pages int, latency time.Duration, seedAll bool, watch ...time.Duration) {
	w := crawltest.NewWeb()
	defer w.Close()
	var names, scope, seeds []string
	for i := 0; i < hosts; i++ {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i, n := range names {
		h := w.AddTree(n, pages, "User-agent: *\nDisallow: /private/\n", latency, names[(i+1)%hosts])
		scope = append(scope, h.Authority())
		if seedAll || i == 0 {
			seeds = append(seeds, h.URL("/"))
		}
	}
	var total, cpu time.Duration
	var commits uint64
	for b.Loop() {
		db, err := storage.Open(filepath.Join(b.TempDir(), "bench.db"), storage.Options{NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		cfg := testConfig(seeds...)
		cfg.Scope, cfg.DefaultDelay, cfg.Workers = scope, 0, 32
		// The crawl's own speed: with no delay, latency_factor 10 would
		// space each host by ten times the loopback's time to first byte
		// (782 pages/s instead of 1,899 in one run).
		cfg.LatencyFactor = 0
		c, err := New(db, cfg)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu0 := time.Now(), processCPU()
		stopWatching := watchStatus(b, c, watch)
		if err := c.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		cpu += processCPU() - cpu0
		stopWatching()
		commits += c.commits.Gen()
		var n int
		db.View(func(tx *storage.Tx) error { n = tx.Counts()[storage.Fetched]; return nil })
		db.Close()
		if n != hosts*pages {
			b.Fatalf("fetched %d pages, want %d", n, hosts*pages)
		}
	}
	b.ReportMetric(float64(hosts*pages*b.N)/total.Seconds(), "pages/s")
	// Group commit at work: how many pages one commit (two fsyncs) records.
	b.ReportMetric(float64(hosts*pages*b.N)/float64(commits), "pages/commit")
	// The process's CPU per page, the web's in-process servers included
	// (the same for any crawler of this web: make compare's measure).
	b.ReportMetric(float64(cpu.Microseconds())/float64(hosts*pages*b.N), "cpu_us/page")
}
