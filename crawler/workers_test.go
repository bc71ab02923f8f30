package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// slowWeb is hosts h0..hN-1 on pn, each a root linking /1../per and the
// next host's root; every page takes think to answer.
func slowWeb(pn *crawltest.PipeNet, hosts, per int, think time.Duration) (*crawltest.Web, []string) {
	w := crawltest.NewWeb()
	var scope []string
	for i := range hosts {
		name, next := fmt.Sprintf("h%d", i), fmt.Sprintf("h%d.test", (i+1)%hosts)
		pages := map[string]*crawltest.Page{"/robots.txt": {Status: 404}}
		root := fmt.Sprintf(`<a href="http://%s/">next</a>`, next)
		for p := 1; p <= per; p++ {
			root += fmt.Sprintf(`<a href="/%d">%d</a>`, p, p)
			pages[fmt.Sprintf("/%d", p)] = &crawltest.Page{Body: "leaf", Delay: think}
		}
		pages["/"] = &crawltest.Page{Body: root, Delay: think}
		w.AddPipeHost(name, pn, name+".test", pages)
		scope = append(scope, name+".test")
	}
	return w, scope
}

// TestWorkersBoundRequests pins what Workers means while tasks wait for a
// worker (see aheadOf): never more requests at once than workers, never
// two at once on one host, and at a stop the waiting tasks are not sent
// (their URLs stay queued and the next run fetches them, once).
func TestWorkersBoundRequests(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pn := crawltest.NewPipeNet()
				w, scope := slowWeb(pn, 8, 4, 100*time.Millisecond)
				defer w.Close()
				cfg := testConfig("http://h0.test/")
				cfg.Scope = scope
				cfg.Fetch.DialContext = pn.Dial
				cfg.Lookup = pn.Lookup
				cfg.Workers = workers
				cfg.DefaultDelay = 10 * time.Millisecond
				// Workers, not the adaptive delay, bound this crawl: 10 ×
				// the servers' 100 ms, learnt in the first run and kept
				// across the restart, spaced each host by 1 s in the
				// second, and no two requests overlapped to count.
				cfg.LatencyFactor = 0
				cfg.ShutdownGrace = 5 * time.Second // in-flight requests finish: only waiting tasks could start late
				db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
				defer db.Close()

				// Stop in the middle: every worker busy, tasks waiting.
				c, err := New(db, cfg)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- c.Run(ctx) }()
				time.Sleep(650 * time.Millisecond)
				stopAt := time.Now()
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				before := 0
				for _, h := range w.Hosts() {
					for _, r := range h.Log() {
						if r.Start.After(stopAt) {
							t.Errorf("%s%s: started %v after the stop", h.Name, r.Path, r.Start.Sub(stopAt))
						}
						before++
					}
				}
				if before < 3 {
					t.Fatalf("only %d requests before the stop: the stop came too early to test anything", before)
				}

				// The rest of the crawl.
				c, err = New(db, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				for _, h := range w.Hosts() {
					if m := h.MaxInFlight(); m > 1 {
						t.Errorf("%s: %d requests at once", h.Name, m)
					}
					for _, p := range []string{"/robots.txt", "/", "/1", "/2", "/3", "/4"} {
						if n := h.Count(p); n != 1 {
							t.Errorf("%s%s: served %d times over the two runs, want once", h.Name, p, n)
						}
					}
				}
				if m := maxOverlap(w); m > workers || m < min(workers, 2) {
					t.Errorf("%d requests at once with %d workers", m, workers)
				}
			})
		})
	}
}

// TestLoweredWorkersBoundRequests: workers lowered while crawling (a
// SIGHUP reload) leaves the worker goroutines already started; with tasks
// waiting for a worker (aheadOf) they would all start one, and 8 -> 2
// gave 3 requests at once. The gate holds them to the new number.
func TestLoweredWorkersBoundRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := crawltest.NewPipeNet()
		w, scope := slowWeb(pn, 16, 6, 100*time.Millisecond)
		defer w.Close()
		cfg := testConfig("http://h0.test/")
		cfg.Scope, cfg.Fetch.DialContext, cfg.Workers, cfg.DefaultDelay = scope, pn.Dial, 8, 10*time.Millisecond
		cfg.Lookup = pn.Lookup
		db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
		defer db.Close()
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Run(context.Background()) }()
		time.Sleep(500 * time.Millisecond)
		changes, err := c.Reconfigure(context.Background(), Live{Seeds: cfg.Seeds, Scope: cfg.Scope,
			DefaultDelay: 2 * cfg.DefaultDelay, MaxDelay: cfg.MaxDelay, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		// What the reload's log line says was applied: the keys that
		// changed, not max_delay beside default_delay.
		if want := []string{"workers 8 -> 2", "politeness.default_delay 10ms -> 20ms"}; !slices.Equal(changes, want) {
			t.Errorf("Reconfigure applied %q, want %q", changes, want)
		}
		lowered := time.Now().Add(150 * time.Millisecond) // requests under way at the change are over by then
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := maxOverlapSince(w, lowered); got != 2 {
			t.Errorf("%d requests at once after lowering workers to 2, want 2", got)
		}
	})
}
