package crawler

import (
	"context"
	"sync"
	"testing"
	"time"
)

// BenchmarkCrawlWatched is BenchmarkCrawl with a status snapshot taken
// every 100 ms while the crawl runs: fifty times as often as an open
// console asks (once per 5 s refresh, a snapshot shared for a second).
// Compare its pages/s with BenchmarkCrawl's.
func BenchmarkCrawlWatched(b *testing.B) {
	benchCrawl(b, 50, 200, 0, false, 100*time.Millisecond)
}

// watchStatus asks c for its status every watch[0] until the returned
// stop is called (no watch: nothing).
func watchStatus(b *testing.B, c *Crawler, watch []time.Duration) (stop func()) {
	if len(watch) == 0 || watch[0] <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(watch[0])
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := c.Status(ctx); err != nil && ctx.Err() == nil && err != ErrNotRunning {
					b.Errorf("status: %v", err)
				}
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}
