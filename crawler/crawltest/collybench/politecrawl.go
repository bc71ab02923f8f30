package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// crawlPolitecrawl runs one crawl configured as BenchmarkCrawl is (its
// testConfig, then no delay and o.workers workers) into a synced state
// file in a temporary directory.
func crawlPolitecrawl(o options, w *web) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "collybench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	db, err := storage.Open(filepath.Join(dir, "bench.db"), storage.Options{NoBackup: true})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	c, err := crawler.New(db, crawler.Config{
		Agent:           "politecrawl",
		Seeds:           []string{w.seed},
		Scope:           w.scope,
		Workers:         o.workers,
		MaxDelay:        5 * time.Second,
		Limits:          frontier.Limits{MaxRepeatedSegments: 3, MaxURLLength: 2000},
		Fetch:           fetch.Options{UserAgent: "politecrawl/bench", AllowPrivate: true, Timeout: 5 * time.Second},
		RobotsRetries:   2,
		RobotsRetryBase: 100 * time.Millisecond,
		BackoffBase:     100 * time.Millisecond,
		StoreBodies:     true,
	})
	if err != nil {
		return 0, fmt.Errorf("new crawler: %w", err)
	}
	start := time.Now()
	if err := c.Run(context.Background()); err != nil {
		return 0, fmt.Errorf("crawl: %w", err)
	}
	return time.Since(start), nil
}
