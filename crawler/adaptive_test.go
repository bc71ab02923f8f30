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
	"github.com/politecrawl/politecrawl/frontier"
)

// pagesOf returns the URLs of n pages /p/1../p/n on base, and a page map
// serving them (and robots.txt, 404) with body.
func pagesOf(base string, n int, page func() *crawltest.Page) ([]string, map[string]*crawltest.Page) {
	urls := []string{}
	pages := map[string]*crawltest.Page{"/robots.txt": {Status: 404}}
	for i := 1; i <= n; i++ {
		p := fmt.Sprintf("/p/%d", i)
		urls = append(urls, base+p)
		pages[p] = page()
	}
	return urls, pages
}

// TestStrugglingServer: in fake time, a server that takes 50ms plus 100ms
// for every request it started in the second before: asked every 100ms
// (a fixed delay), it slows down past five times its base; with the
// adaptive delay (latency_factor 10 × its smoothed time to first byte),
// the crawl spaces its requests so that it stays near its base, the median
// under twice the base.
func TestStrugglingServer(t *testing.T) {
	const base = 50 * time.Millisecond
	for _, tc := range []struct {
		name      string
		factor    float64
		wantBelow time.Duration // median server time under this
		wantAbove time.Duration // or over this
	}{
		{"fixed 100ms delay", 0, 0, 5 * base},
		{"adaptive", 10, 2 * base, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pn := crawltest.NewPipeNet()
				web := crawltest.NewWeb()
				defer web.Close()
				seeds, pages := pagesOf("http://busy.test", 40, func() *crawltest.Page { return &crawltest.Page{Body: "x"} })
				h := web.AddPipeHost("busy", pn, "busy.test", pages)
				h.SetLoad(base, 100*time.Millisecond, time.Second)
				cfg := testConfig(seeds...)
				cfg.Fetch.DialContext, cfg.Lookup = pn.Dial, pn.Lookup
				cfg.DefaultDelay, cfg.MaxDelay = 100*time.Millisecond, time.Minute
				cfg.LatencyFactor, cfg.ErrorBackoff = tc.factor, true
				start := time.Now()
				crawlToEnd(t, cfg)
				times := h.ServerTimes()
				if len(times) != 41 {
					t.Fatalf("%d requests, want 41", len(times))
				}
				med := median(times)
				t.Logf("median server time %v (base %v) over %d requests in %v; all: %v", med, base, len(times), time.Since(start).Round(time.Second), times)
				if tc.wantBelow > 0 && med >= tc.wantBelow {
					t.Errorf("median server time %v, want under %v", med, tc.wantBelow)
				}
				if tc.wantAbove > 0 && med <= tc.wantAbove {
					t.Errorf("median server time %v, want over %v", med, tc.wantAbove)
				}
			})
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestServerDownForAMinute: in fake time, a server answers 503 to every
// page for a minute, then well. The crawl's request rate falls while it
// fails (the host's hold after each failure and its doubled delay), then
// comes back to the configured delay once it answers again, gradually: a
// halving per success.
func TestServerDownForAMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := crawltest.NewPipeNet()
		web := crawltest.NewWeb()
		defer web.Close()
		down := func() *crawltest.Page { return &crawltest.Page{Status: 503, Body: "down"} }
		seeds, pages := pagesOf("http://down.test", 150, down)
		h := web.AddPipeHost("down", pn, "down.test", pages)
		start := time.Now()
		go func() {
			time.Sleep(time.Minute)
			for p := range pages {
				if p != "/robots.txt" {
					h.SetPage(p, &crawltest.Page{Body: "up"})
				}
			}
		}()
		cfg := testConfig(seeds...)
		cfg.Fetch.DialContext, cfg.Lookup = pn.Dial, pn.Lookup
		cfg.DefaultDelay, cfg.MaxDelay = 500*time.Millisecond, time.Minute
		cfg.BackoffBase, cfg.BackoffMax = time.Second, 10*time.Second
		cfg.MaxRetries = 10
		cfg.LatencyFactor, cfg.ErrorBackoff = 10, true
		db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
		defer db.Close()
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Run(context.Background()) }()
		// While it fails, status says why the host waits, and its IP
		// group (known since before its first request).
		time.Sleep(30 * time.Second)
		st, err := c.Status(context.Background())
		if err != nil || len(st.PerHost) != 1 {
			t.Fatalf("status %+v %v", st, err)
		}
		if hs := st.PerHost[0]; hs.IP != "198.18.0.1" || (hs.DelayReason != frontier.WhyErrorBackoff && hs.DelayReason != frontier.WhyBackoff) {
			t.Errorf("status while failing: IP %q, delay %vs because %q", hs.IP, hs.IntervalS, hs.DelayReason)
		} else {
			t.Logf("status at 30s: delay %vs because %q", hs.IntervalS, hs.DelayReason)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		// Requests per 10s, by the server's clock.
		var buckets []int
		var lastGaps []time.Duration
		log := h.Log()
		for i, r := range log {
			b := int(r.Start.Sub(start) / (10 * time.Second))
			for len(buckets) <= b {
				buckets = append(buckets, 0)
			}
			buckets[b]++
			if i > len(log)-5 {
				lastGaps = append(lastGaps, r.Start.Sub(log[i-1].Start))
			}
		}
		t.Logf("requests per 10s: %v (503 in the first 6); last gaps %v", buckets, lastGaps)
		if len(buckets) < 9 {
			t.Fatalf("the crawl ended after %d buckets", len(buckets))
		}
		if buckets[5] >= buckets[0] {
			t.Errorf("the rate did not fall while the server failed: %v", buckets)
		}
		if !slices.ContainsFunc(buckets[7:], func(n int) bool { return n > 2*buckets[5] }) {
			t.Errorf("the rate did not come back: %v", buckets)
		}
		// Gradually: the first 10s after the first success are slower
		// than the configured rate, the doubled delay coming down by halves.
		var firstOK time.Time
		afterOK := 0
		for _, r := range log {
			if r.Status == 200 && firstOK.IsZero() {
				firstOK = r.Start
			}
			if !firstOK.IsZero() && r.Start.Sub(firstOK) < 10*time.Second {
				afterOK++
			}
		}
		if afterOK >= 19 {
			t.Errorf("%d requests in the 10s after the first success: back at the full rate at once", afterOK)
		}
		for _, g := range lastGaps {
			if g != 510*time.Millisecond {
				t.Errorf("the last requests are %v apart, want the configured 500ms and its margin: %v", g, lastGaps)
				break
			}
		}
	})
}
