package crawler

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/metrics"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
)

func crawlShop(t *testing.T, web *crawltest.Web, db *storage.DB, sitemaps bool, tweak func(*Config)) {
	t.Helper()
	shop := web.Host("shop")
	cfg := testConfig(shop.URL("/"))
	cfg.Sitemaps = sitemaps
	cfg.Scope = []string{shop.Authority()}
	if tweak != nil {
		tweak(&cfg)
	}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v %v", err, ctx.Err())
	}
}

func sitemapRecords(t *testing.T, db *storage.DB) map[string]*storage.SitemapRecord {
	out := map[string]*storage.SitemapRecord{}
	db.View(func(tx *storage.Tx) error {
		return tx.ForEachSitemap(func(r *storage.SitemapRecord) error { out[r.URL] = r; return nil })
	})
	return out
}

func TestSitemapsFindOrphans(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	crawlShop(t, web, db, true, nil)

	for _, p := range []string{"/orphan/1", "/orphan/2", "/", "/a", "/sitemap_index.xml", "/sitemaps/products.xml.gz",
		"/sitemaps/loop_index.xml", "/sitemaps/deep1.xml", "/sitemaps/deep2.xml", "/sitemaps/deep3.xml", "/robots.txt"} {
		if n := shop.Count(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	for _, p := range []string{"/private/x", "/blocked-sitemap.xml", "/sitemaps/deep4.xml", "/deep-orphan", "/orphan/3"} {
		if n := shop.Count(p); n != 0 {
			t.Errorf("%s requested %d times, want never", p, n)
		}
	}
	if n := len(web.Host("elsewhere").Log()); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
	for _, v := range shop.Violations(50*time.Millisecond, crawltest.Slack, nil) {
		t.Error(v)
	}
	recs := records(t, db)
	for _, p := range []string{"/orphan/1", "/orphan/2"} {
		r := recs[shop.URL(p)]
		if r == nil || r.State != storage.Fetched || r.DiscoveredVia != "sitemap" || r.Lastmod.IsZero() || r.Changefreq != "weekly" || r.Parent != shop.URL("/sitemaps/products.xml.gz") {
			t.Errorf("%s: %+v", p, r)
		}
	}
	if r := recs[shop.URL("/")]; r.DiscoveredVia != "seed" {
		t.Errorf("/ was queued again from the sitemap: %+v", r)
	}
	if r := recs[shop.URL("/private/x")]; r == nil || r.State != storage.Disallowed {
		t.Errorf("/private/x: %+v", r)
	}
	sms := sitemapRecords(t, db)
	prod := sms[shop.URL("/sitemaps/products.xml.gz")]
	if prod == nil || prod.State != smRead || prod.Format != "urlset" || prod.Listed != 6 ||
		prod.Accepted != 2 || prod.Dropped[dropOutside] != 1 || prod.Dropped[dropKnown] != 2 || prod.Dropped[dropRefused] != 1 {
		t.Errorf("products sitemap: %+v", prod)
	}
	if r := sms[shop.URL("/blocked-sitemap.xml")]; r == nil || r.State != smDisallowed {
		t.Errorf("blocked sitemap: %+v", r)
	}
	if r := sms[shop.URL("/sitemaps/deep3.xml")]; r == nil || r.Dropped[dropDepth] != 1 {
		t.Errorf("deep3: %+v", r)
	}
	if r := sms[shop.URL("/sitemaps/loop_index.xml")]; r == nil || r.Dropped[dropSeen] != 1 {
		t.Errorf("cycle: %+v", r)
	}
	if _, ok := sms[shop.URL("/sitemaps/deep4.xml")]; ok {
		t.Error("deep4 recorded")
	}
}

func TestSitemapsOff(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	crawlShop(t, web, db, false, nil)
	for _, p := range shop.Paths() {
		if strings.Contains(p, "sitemap") || strings.HasPrefix(p, "/orphan") {
			t.Errorf("%s requested with sitemaps off", p)
		}
	}
	if shop.Count("/a") != 1 {
		t.Error("the linked page was not crawled")
	}
}

func TestSitemapCapPerHost(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	crawlShop(t, web, db, true, func(c *Config) { c.MaxSitemapsPerHost = 3 })
	fetched := 0
	for _, p := range shop.Paths() {
		if strings.Contains(p, "sitemap") && p != "/blocked-sitemap.xml" {
			fetched++
		}
	}
	// robots.txt names 2 (one disallowed), the index adds 1 more before the cap.
	if fetched != 2 {
		t.Errorf("%d sitemap files fetched with a cap of 3 (one disallowed), want 2: %q", fetched, shop.Paths())
	}
	skipped := 0
	for _, r := range sitemapRecords(t, db) {
		if r.State == smSkipped {
			skipped++
		}
	}
	if skipped != 2 {
		t.Errorf("%d sitemaps skipped by the cap, want 2", skipped)
	}
}

func TestSitemapReadAgainAfterStop(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	slow := *&crawltest.Page{Body: crawltest.Gzip(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + shop.URL("/orphan/1") + `</loc></url><url><loc>` + shop.URL("/orphan/2") + `</loc></url></urlset>`),
		Delay: 1500 * time.Millisecond}
	shop.SetPage("/sitemaps/products.xml.gz", &slow)
	path := filepath.Join(t.TempDir(), "s.db")

	// First run: stopped while the slow sitemap is being read.
	db := openDB(t, path)
	shopCfg := func(c *Config) {
		c.ShutdownGrace = 50 * time.Millisecond
		// The sitemap's 1.5s before its first byte would space the shop's
		// next requests by latency_factor × 1.5s (capped at MaxDelay, 5s):
		// the rest of the crawl would not fit the test's time.
		c.LatencyFactor = 0
	}
	cfg := testConfig(shop.URL("/"))
	cfg.Sitemaps, cfg.Scope = true, []string{shop.Authority()}
	shopCfg(&cfg)
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for shop.Count("/sitemaps/products.xml.gz") == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if r := sitemapRecords(t, db)[shop.URL("/sitemaps/products.xml.gz")]; r == nil || r.State != smPending {
		t.Fatalf("after the stop the sitemap should still be pending: %+v", r)
	}
	db.Close()

	// Second run: reads it again and queues nothing twice.
	db = openDB(t, path)
	defer db.Close()
	crawlShop(t, web, db, true, shopCfg)
	if n := shop.Count("/sitemaps/products.xml.gz"); n != 2 {
		t.Errorf("sitemap read %d times, want 2", n)
	}
	for _, p := range []string{"/orphan/1", "/orphan/2", "/sitemap_index.xml", "/robots.txt"} {
		if n := shop.Count(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
}

// TestSitemapReadAgainCountsThatRead: a sitemap read again (as a daemon
// does each interval) reports what that read did: nothing new accepted,
// the URLs it queued before now already known, and the one robots.txt
// refused still refused, in its record (and so in status), its log line
// and politecrawl_sitemap_urls_total, whose "accepted" does not grow.
func TestSitemapReadAgainCountsThatRead(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	crawlShop(t, web, db, true, nil)
	products := shop.URL("/sitemaps/products.xml.gz")
	first := sitemapRecords(t, db)[products]
	if first == nil || first.Accepted != 2 || first.Dropped[dropRefused] != 1 {
		t.Fatalf("first read: %+v", first)
	}

	// Due again: what rereadSitemap does when its interval has passed.
	if err := db.Update(func(tx *storage.Tx) error {
		r, err := tx.GetSitemap(products)
		if err != nil {
			return err
		}
		r.State = smPending
		return tx.PutSitemap(r)
	}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	crawlShop(t, web, db, true, func(c *Config) { c.Metrics = metrics.New(reg) })
	if n := shop.Count("/sitemaps/products.xml.gz"); n != 2 {
		t.Fatalf("sitemap read %d times, want 2", n)
	}

	again := sitemapRecords(t, db)[products]
	want := map[string]int{dropOutside: 1, dropKnown: 4, dropRefused: 1}
	if again.Listed != 6 || again.Accepted != 0 || !maps.Equal(again.Dropped, want) {
		t.Errorf("read again: listed %d, accepted %d, dropped %v; want 6, 0, %v", again.Listed, again.Accepted, again.Dropped, want)
	}
	st, err := status.Read(db, time.Now(), frontier.Adaptive{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range st.PerHost {
		if h.Host == shop.Authority() && (h.Sitemaps == nil || h.Sitemaps.Dropped[dropRefused] != 1) {
			t.Errorf("status lost the URL robots.txt refused: %+v", h.Sitemaps)
		}
	}
	fates := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "politecrawl_sitemap_urls_total" {
			for _, m := range f.GetMetric() {
				fates[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if fates["accepted"] != 0 || fates[dropKnown] != 4 || fates[dropRefused] != 1 {
		t.Errorf("politecrawl_sitemap_urls_total for the second read: %v; want 0 accepted, 4 known, 1 refused", fates)
	}
}

// TestSitemapSettledEventSaysHow: a sitemap file closed unread by its
// response (a 404; a 503 until the retries run out) is reported to
// Observe as "sitemap failed" with the reason its record keeps (a review
// found "sitemap pending" with no reason after the move to the frontier).
func TestSitemapSettledEventSaysHow(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("shop", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\nSitemap: /missing.xml\nSitemap: /down.xml\n"},
		"/":           {Body: "<html><title>home</title></html>"},
		"/down.xml":   {Status: 503},
	})
	var mu sync.Mutex
	events := map[string][]Event{}
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	crawlShop(t, w, db, true, func(cfg *Config) {
		cfg.MaxRetries = 2
		cfg.Observe = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			events[e.URL] = append(events[e.URL], e)
		}
	})
	sms := sitemapRecords(t, db)
	for _, p := range []string{"/missing.xml", "/down.xml"} {
		u := h.URL(p)
		rec := sms[u]
		if rec == nil {
			t.Fatalf("%s: no record", p)
		}
		evs := events[u]
		if len(evs) == 0 {
			t.Errorf("%s: no event", p)
			continue
		}
		last := evs[len(evs)-1]
		if rec.State != smFailed || last.State != "sitemap "+rec.State || last.Reason != rec.Error {
			t.Errorf("%s: last event %q %q, record says %q %q", p, last.State, last.Reason, rec.State, rec.Error)
		}
	}
}

// TestSitemapRetryAfter: a 429 or 503 on a sitemap file holds its host at
// least its Retry-After, as the same answer on a page does (SPEC 6.3); the
// header was ignored before, and the host's next request came after the
// backoff alone. Run in a synctest bubble: the gaps are exact.
func TestSitemapRetryAfter(t *testing.T) {
	for _, status := range []int{429, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pn := crawltest.NewPipeNet()
				w := crawltest.NewWeb()
				defer w.Close()
				h := w.AddPipeHost("site", pn, "site.test", map[string]*crawltest.Page{
					"/robots.txt": {Body: "User-agent: *\nAllow: /\nSitemap: http://site.test/sm.xml\n", Header: map[string]string{"Content-Type": "text/plain"}},
					"/":           {Body: `<a href="/a">a</a>`},
					"/a":          {Body: "a"},
					"/sm.xml": {Body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://site.test/b</loc></url></urlset>`,
						Header: map[string]string{"Content-Type": "application/xml"}, FailTimes: 1, FailStatus: status,
						FailHeader: map[string]string{"Retry-After": "3"}},
					"/b": {Body: "b"},
				})
				cfg := testConfig("http://site.test/")
				cfg.Fetch.DialContext, cfg.Lookup = pn.Dial, pn.Lookup
				cfg.Sitemaps, cfg.Scope = true, []string{"site.test"}
				cfg.DefaultDelay, cfg.BackoffMax, cfg.MaxRetries = 100*time.Millisecond, 100*time.Millisecond, 3
				crawlToEnd(t, cfg)
				log := h.Log()
				if n := h.Count("/sm.xml"); n != 2 || h.Count("/b") != 1 {
					t.Fatalf("sitemap asked %d times, /b %d; want 2 and 1: %v", n, h.Count("/b"), gaps(log))
				}
				for i := 1; i < len(log); i++ {
					if log[i-1].Path == "/sm.xml" && log[i-1].Status == status {
						if gap := log[i].Start.Sub(log[i-1].Start); gap < 3*time.Second {
							t.Errorf("%s %v after the sitemap's %d with Retry-After: 3; log %v", log[i].Path, gap, status, gaps(log))
						}
						return
					}
				}
				t.Fatalf("no %d on the sitemap in the log: %v", status, gaps(log))
			})
		})
	}
}
