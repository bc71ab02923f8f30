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
// production.
func BenchmarkCrawl(b *testing.B) {
	const hosts, pages = 50, 200
	w := crawltest.NewWeb()
	defer w.Close()
	var names, scope []string
	for i := 0; i < hosts; i++ {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i, n := range names {
		h := w.AddTree(n, pages, "User-agent: *\nDisallow: /private/\n", 0, names[(i+1)%hosts])
		scope = append(scope, h.Authority())
	}
	var total time.Duration
	for b.Loop() {
		db, err := storage.Open(filepath.Join(b.TempDir(), "bench.db"), storage.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cfg := testConfig(w.Host(names[0]).URL("/"))
		cfg.Scope, cfg.DefaultDelay, cfg.Workers = scope, 0, 32
		c, err := New(db, cfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := c.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		var n int
		db.View(func(tx *storage.Tx) error { n = tx.Counts()[storage.Fetched]; return nil })
		db.Close()
		if n != hosts*pages {
			b.Fatalf("fetched %d pages, want %d", n, hosts*pages)
		}
	}
	b.ReportMetric(float64(hosts*pages*b.N)/total.Seconds(), "pages/s")
}
