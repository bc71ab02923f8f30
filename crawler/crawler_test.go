package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

const testUA = "politecrawl/test (+https://example.org/bot)"

func testConfig(seeds ...string) Config {
	return Config{
		Agent:           "politecrawl",
		Seeds:           seeds,
		Workers:         4,
		DefaultDelay:    50 * time.Millisecond,
		MaxDelay:        5 * time.Second,
		Limits:          frontier.Limits{MaxRepeatedSegments: 3, MaxURLLength: 2000},
		Fetch:           fetch.Options{UserAgent: testUA, AllowPrivate: true, Timeout: 5 * time.Second},
		RobotsRetries:   2,
		RobotsRetryBase: 100 * time.Millisecond,
		BackoffBase:     100 * time.Millisecond,
		StoreBodies:     true,
		// The adaptive delay as the daemon's defaults have it: tests of
		// politeness check it changes nothing on a fast loopback server.
		LatencyFactor: 10,
		ErrorBackoff:  true,
	}
}

func openDB(t *testing.T, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(path, storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func records(t *testing.T, db *storage.DB) map[string]*storage.URLRecord {
	t.Helper()
	out := map[string]*storage.URLRecord{}
	db.View(func(tx *storage.Tx) error {
		return tx.ForEachURL(func(r *storage.URLRecord) error { out[r.URL] = r; return nil })
	})
	return out
}

func TestCrawlStandardWeb(t *testing.T) {
	web := crawltest.Standard()
	defer web.Close()
	main := web.Host("main")
	// Scope: every host of the web (the seeds' hosts would be main only).
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var scope []string
	for _, h := range web.Hosts() {
		scope = append(scope, h.Authority())
	}
	cfg := testConfig(main.URL("/") + "#top")
	cfg.Scope = scope
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("crawl did not drain in time")
	}
	t.Logf("crawl drained in %v", time.Since(start))

	// Politeness, from the servers' side.
	gaps := map[string]time.Duration{"main": crawltest.MainDelay, "rate": crawltest.RateDelay}
	for _, h := range web.Hosts() {
		gap := gaps[h.Name]
		if gap == 0 {
			gap = cfg.DefaultDelay
		}
		notFetch := MustNotFetchSet(h.Name)
		for _, v := range h.Violations(gap, crawltest.Slack, func(p string) bool { return notFetch[p] }) {
			t.Error(v)
		}
		for _, r := range h.Log() {
			if r.UA != testUA {
				t.Errorf("%s %s: User-Agent %q", h.Name, r.Path, r.UA)
			}
		}
	}
	// Every reachable allowed URL fetched, once.
	for host, paths := range crawltest.MustFetch {
		h := web.Host(host)
		for _, p := range paths {
			want := 1
			switch {
			case host == "flaky" && p == "/":
				want = 3 // two 500s, then success
			case host == "busy" && p == "/":
				want = 2 // a 429, then success
			}
			if got := h.Count(p); got != want {
				t.Errorf("%s%s fetched %d times, want %d", host, p, got, want)
			}
		}
	}
	// The down host: nothing but robots.txt, retried RobotsRetries times.
	down := web.Host("down")
	if paths := down.Paths(); len(paths) != 3 || slices.ContainsFunc(paths, func(p string) bool { return p != "/robots.txt" }) {
		t.Errorf("down host saw %q, want 3 robots.txt requests", paths)
	}
	// Retry-After: 1 held the busy host at least a second.
	busy := web.Host("busy").Log()
	if len(busy) < 3 || busy[2].Start.Sub(busy[1].Start) < crawltest.BusyHold {
		t.Errorf("busy host retried too soon: %+v", busy)
	}

	recs := records(t, db)
	check := func(url string, fn func(r *storage.URLRecord) bool, what string) {
		t.Helper()
		r := recs[url]
		if r == nil || !fn(r) {
			t.Errorf("%s: %s; record %+v", url, what, r)
		}
	}
	check(main.URL("/private/secret"), func(r *storage.URLRecord) bool {
		return r.State == storage.Disallowed && strings.Contains(r.Error, "/private/")
	}, "disallowed by robots.txt")
	check(main.URL("/noindex"), func(r *storage.URLRecord) bool { return r.State == storage.Fetched && r.NoIndex }, "noindex")
	check(main.URL("/nofollow"), func(r *storage.URLRecord) bool { return r.NoFollow && len(r.Links) == 0 }, "nofollow, no links")
	check(main.URL("/xrobots"), func(r *storage.URLRecord) bool { return r.NoFollow && r.NoIndex }, "X-Robots-Tag for our agent")
	check(main.URL("/doc.pdf"), func(r *storage.URLRecord) bool { return r.NoIndex && r.ContentType == "application/pdf" }, "non-HTML with X-Robots-Tag")
	check(main.URL("/redirect"), func(r *storage.URLRecord) bool {
		return r.State == storage.Fetched && r.Status == 301 && slices.Equal(r.Links, []string{main.URL("/redirected")})
	}, "redirect recorded with its target")
	check(main.URL("/redirected"), func(r *storage.URLRecord) bool { return r.DiscoveredVia == "redirect" }, "discovered via redirect")
	check(main.URL("/loop/loop/loop/loop/"), func(r *storage.URLRecord) bool {
		return r.State == storage.Skipped && strings.Contains(r.Error, "trap")
	}, "trap skipped")
	check(main.URL("/"), func(r *storage.URLRecord) bool {
		return r.Title == "Main home" && r.DiscoveredVia == "seed" && r.Depth == 0 && !r.FetchedAt.IsZero()
	}, "seed fetched")
	check(main.URL("/a/deep"), func(r *storage.URLRecord) bool { return r.Depth == 2 && r.DiscoveredVia == "link" }, "depth 2 link")
	check(web.Host("down").URL("/"), func(r *storage.URLRecord) bool {
		return r.State == storage.Failed && strings.Contains(r.Error, "robots.txt unreachable")
	}, "failed: robots.txt unreachable")
	check(web.Host("other").URL("/blocked"), func(r *storage.URLRecord) bool { return r.State == storage.Disallowed }, "rules of a redirected robots.txt apply to the original host")
	check(web.Host("flaky").URL("/"), func(r *storage.URLRecord) bool { return r.State == storage.Fetched && r.Attempts == 3 }, "fetched on the third attempt")
	check(web.Host("broken").URL("/"), func(r *storage.URLRecord) bool {
		return r.State == storage.Failed && r.Attempts == 3 && strings.Contains(r.Error, "HTTP 500")
	}, "failed after three attempts")
	if n := web.Host("broken").Count("/"); n != 3 {
		t.Errorf("broken / requested %d times, want 3", n)
	}
	check(main.URL("/rb"), func(r *storage.URLRecord) bool {
		return r.Status == 302 && slices.Equal(r.Links, []string{main.URL("/ra")})
	}, "redirect loop recorded, not followed again")
	if _, ok := recs["http://outside.invalid/"]; ok {
		t.Error("out-of-scope URL recorded")
	}
	for u, r := range recs {
		if r.State == storage.Queued {
			t.Errorf("%s still queued after drain", u)
		}
	}
	db.View(func(tx *storage.Tx) error {
		if b, _ := tx.Body(main.URL("/")); !strings.Contains(string(b), "Main home") {
			t.Error("body of an indexable page not stored")
		}
		if b, _ := tx.Body(main.URL("/noindex")); b != nil {
			t.Error("body of a noindex page stored")
		}
		return nil
	})
	hostCountsAgree(t, db, recs)
}

// MustNotFetchSet returns the standard web's forbidden paths for a host.
func MustNotFetchSet(host string) map[string]bool {
	m := map[string]bool{}
	for _, p := range crawltest.MustNotFetch[host] {
		m[p] = true
	}
	return m
}

func TestRobotsRefetchedAfterMaxAge(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	pages := map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nDisallow: /late-block\n", Header: map[string]string{"Cache-Control": "max-age=1"}},
	}
	var links strings.Builder
	for i := 0; i < 8; i++ {
		p := fmt.Sprintf("/p%d", i)
		links.WriteString(`<a href="` + p + `">x</a>`)
		pages[p] = &crawltest.Page{Body: "ok"}
	}
	links.WriteString(`<a href="/late-block">late</a>`)
	pages["/"] = &crawltest.Page{Body: links.String()}
	pages["/late-block"] = &crawltest.Page{Body: "ok"}
	h := w.AddHost("h", pages)
	// Once the first copy expires, the host blocks everything.
	go func() {
		time.Sleep(500 * time.Millisecond)
		h.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nDisallow: /\n"})
	}()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay = 250 * time.Millisecond
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := h.Count("/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2 (max-age=1 expires once during the crawl)", n)
	}
	log := h.Log()
	var afterSecond bool
	for _, r := range log {
		if r.Path == "/robots.txt" && afterSecond {
			break
		}
		if r.Path == "/robots.txt" && r.Start.Sub(log[0].Start) > time.Second {
			afterSecond = true
			continue
		}
		if afterSecond {
			t.Errorf("%s fetched after the new robots.txt disallowed everything", r.Path)
		}
	}
	if h.Count("/late-block") != 0 {
		t.Error("/late-block fetched")
	}
}

// TestPrivateAddressRefusedAtOnce: a crawl of one's own intranet or
// localhost without network.allow_private requests nothing, and says so at
// once, in one line that names the key (not "unreachable", no attempts,
// no retry); status shows no last request and the refusal as the last
// error; the next run, with the key set, crawls the site.
func TestPrivateAddressRefusedAtOnce(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{"/": {Body: "x"}})
	cfg := testConfig(h.URL("/"))
	cfg.Fetch.AllowPrivate = false
	cfg.RobotsRetryBase = time.Minute // a retry would hang the test
	var logs syncBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	path := filepath.Join(t.TempDir(), "s.db")
	db := openDB(t, path)
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v %v", err, ctx.Err())
	}
	if n := len(h.Log()); n != 0 {
		t.Errorf("loopback server saw %d requests", n)
	}
	var said []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			said = append(said, l)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "network.allow_private") || !strings.Contains(said[0], h.Authority()) ||
		strings.Contains(said[0], "unreachable") || strings.Contains(said[0], "attempt") {
		t.Errorf("want one warning naming network.allow_private and the address; got %q", said)
	}
	if n := strings.Count(logs.String(), "dial tcp"); n > 1 {
		t.Errorf("the log says 'dial tcp' %d times:\n%s", n, logs.String())
	}
	r := records(t, db)[h.URL("/")]
	if r == nil || r.State != storage.Failed || !strings.Contains(r.Error, "private address") || !strings.Contains(r.Error, "network.allow_private") {
		t.Errorf("record %+v", r)
	}
	st, err := status.Read(db, time.Now(), frontier.Adaptive{})
	if err != nil || len(st.PerHost) != 1 {
		t.Fatalf("status %+v %v", st, err)
	}
	if hs := st.PerHost[0]; !hs.LastRequest.IsZero() || !strings.Contains(hs.LastError, "network.allow_private") {
		t.Errorf("status: last request %v (none was sent), last error %q", hs.LastRequest, hs.LastError)
	}
	db.Close()

	// With the key set, the next run crawls what was refused.
	cfg.Fetch.AllowPrivate, cfg.Logger = true, nil
	db = openDB(t, path)
	defer db.Close()
	c, err = New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("second run: %v %v", err, ctx.Err())
	}
	if r := records(t, db)[h.URL("/")]; r == nil || r.State != storage.Fetched {
		t.Errorf("after allowing private addresses: %+v", r)
	}
}

func TestQueuedURLsDisallowedLaterAreSettledTogether(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nDisallow: /no/\n"},
		"/":           {Body: "ok"},
	})
	var seeds []string
	for i := 0; i < 2500; i++ {
		seeds = append(seeds, h.URL(fmt.Sprintf("/no/%d", i)))
	}
	seeds = append(seeds, h.URL("/"))
	cfg := testConfig(seeds...)
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v %v", err, ctx.Err())
	}
	if got := h.Paths(); len(got) != 2 || got[0] != "/" || got[1] != "/robots.txt" {
		t.Errorf("requests %q, want robots.txt and / only", got)
	}
	var counts map[storage.State]int
	db.View(func(tx *storage.Tx) error { counts = tx.Counts(); return nil })
	if counts[storage.Disallowed] != 2500 || counts[storage.Fetched] != 1 || counts[storage.Queued] != 0 {
		t.Errorf("counts %v", counts)
	}
	t.Logf("2,500 queued URLs disallowed after robots.txt arrived, settled in %v", time.Since(start))
}

// TestSeedRefusedAtStartIsReported: a seed added to the config of a crawl
// that already knows its host's robots.txt is refused as the crawl starts
// (recorded disallowed before any batch is open); Observe (the progress
// display, a cluster node) is told of it like any other outcome. It was
// recorded but never reported.
func TestSeedRefusedAtStartIsReported(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddTree("h", 3, "User-agent: *\nDisallow: /private/\n", 0)
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay = 0
	for run, seeds := range [][]string{{h.URL("/")}, {h.URL("/"), h.URL("/private/x")}} {
		cfg.Seeds = seeds
		var got []string
		cfg.Observe = func(e Event) { got = append(got, e.State+" "+e.URL) }
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if want := "disallowed " + h.URL("/private/x"); run == 1 && !slices.Contains(got, want) {
			t.Errorf("second run reported %q, want %q among them", got, want)
		}
	}
	if r := records(t, db)[h.URL("/private/x")]; r == nil || r.State != storage.Disallowed {
		t.Errorf("record %+v, want disallowed", r)
	}
}
