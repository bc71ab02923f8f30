package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

func TestRecrawl(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	const lm = "Mon, 02 Nov 2026 10:00:00 GMT"
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/same">s</a><a href="/dated">d</a><a href="/changing">c</a>`, ETag: `"root-1"`},
		"/same":       {Body: `<title>Same</title>`, ETag: `W/"same-1"`, LastModified: lm},
		"/dated":      {Body: `<title>Dated</title>`, LastModified: lm},
		"/changing":   {Body: `<title>Old</title>`, ETag: `"c-1"`},
		"/new":        {Body: `<title>New</title>`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 400*time.Millisecond
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case err := <-done:
				t.Fatalf("run ended (%v) while waiting for %s", err, what)
			case <-time.After(10 * time.Millisecond):
			}
			if ctx.Err() != nil {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	// The first round fetches everything; then rechecks come as 304s.
	waitFor("a 304 for /same", func() bool { return statusSeen(h, "/same", 304) })
	waitFor("a 304 for /dated", func() bool { return statusSeen(h, "/dated", 304) })
	for _, r := range h.Log() {
		switch {
		case r.Path == "/same" && r.Status == 304 && (r.IfNoneMatch != `W/"same-1"` || r.IfModifiedSince != lm):
			t.Errorf("/same recheck sent If-None-Match %q If-Modified-Since %q", r.IfNoneMatch, r.IfModifiedSince)
		case r.Path == "/dated" && r.Status == 304 && (r.IfNoneMatch != "" || r.IfModifiedSince != lm):
			t.Errorf("/dated recheck sent If-None-Match %q If-Modified-Since %q", r.IfNoneMatch, r.IfModifiedSince)
		}
	}
	// A changed page is re-extracted: new title, new link followed.
	h.SetPage("/changing", &crawltest.Page{Body: `<title>Changed</title><a href="/new">n</a>`, ETag: `"c-2"`})
	waitFor("the new link", func() bool { return h.Count("/new") > 0 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	recs := records(t, db)
	if r := recs[h.URL("/changing")]; r.Title != "Changed" || r.ETag != `"c-2"` || len(r.Links) != 1 {
		t.Errorf("changed page not re-extracted: %+v", r)
	}
	if r := recs[h.URL("/same")]; r.Title != "Same" || r.Status != 200 || r.CheckedAt.IsZero() || !r.CheckedAt.After(r.FetchedAt) {
		t.Errorf("a 304 must keep the record and update checked_at: %+v", r)
	}
	for _, v := range h.Violations(cfg.DefaultDelay, crawltest.Slack, nil) {
		t.Error(v)
	}
	if n := h.Count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times within its 24h lifetime", n)
	}
	db.View(func(tx *storage.Tx) error {
		if tx.CountDue() == 0 {
			t.Error("no recrawl scheduled after the stop")
		}
		return nil
	})
}

func statusSeen(h *crawltest.Host, path string, status int) bool {
	for _, r := range h.Log() {
		if r.Path == path && r.Status == status {
			return true
		}
	}
	return false
}

func TestNewerLastmodMakesPageDueEarly(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig("http://a.test/")
	cfg.Recrawl = time.Hour
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fetched := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	db.Update(func(tx *storage.Tx) error {
		u, seq, _ := tx.Head("a.test")
		c.front.Finish(tx, "a.test", seq)
		return tx.PutURL(&storage.URLRecord{URL: u, State: storage.Fetched, FetchedAt: fetched, NextCheck: fetched.Add(time.Hour)}, storage.Queued)
	})
	for _, c2 := range []struct {
		lastmod time.Time
		queued  bool
	}{
		{fetched.Add(-time.Hour), false}, // older than our copy
		{time.Time{}, false},             // no lastmod
		{fetched.Add(time.Hour), true},   // changed since: due now
		{fetched.Add(2 * time.Hour), true},
	} {
		db.Update(func(tx *storage.Tx) error {
			known, err := c.front.LastmodNewer(tx, "http://a.test/", c2.lastmod, c.cfg.Now())
			if err != nil || !known {
				t.Fatalf("lastmodNewer: %v %v", known, err)
			}
			return nil
		})
		db.View(func(tx *storage.Tx) error {
			_, _, queued := tx.Head("a.test")
			if queued != c2.queued {
				t.Errorf("lastmod %v: queued %v, want %v", c2.lastmod, queued, c2.queued)
			}
			return nil
		})
	}
	// Already queued for a recheck: not queued twice.
	db.View(func(tx *storage.Tx) error {
		n := 0
		tx.ForEachQueued("a.test", func(uint64, string) error { n++; return nil })
		if n != 1 {
			t.Errorf("%d queue entries, want 1", n)
		}
		return nil
	})
}

func TestRecheckRetryKeepsCounters(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Status: 404},
		"/":           {Body: "v1", ETag: `"1"`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl, cfg.BackoffBase = 20*time.Millisecond, 200*time.Millisecond, 20*time.Millisecond
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for h.Count("/") == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	// The recheck now meets a 503 once, then the page again.
	h.SetPage("/", &crawltest.Page{Body: "v2", ETag: `"2"`, FailTimes: h.Count("/") + 1, FailStatus: 503})
	for !statusSeen(h, "/", 503) || h.Count("/") < 3 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	db.View(func(tx *storage.Tx) error {
		got := tx.Counts()
		if got[storage.Fetched] != 1 || got[storage.Queued] < 0 || got[storage.Queued] > 1 {
			t.Errorf("counters after a retried recheck: %v, want 1 fetched and 0 or 1 queued", got)
		}
		return nil
	})
}

// TestRecrawlScheduleFollowsTheInterval: a state file crawled without a
// recrawl interval, then run as a daemon with one, rechecks its pages (it
// never did: pages were scheduled only as they were fetched); and when the
// interval changes, pages scheduled under the old one follow the new one
// (they waited out the old).
func TestRecrawlScheduleFollowsTheInterval(t *testing.T) {
	h, db := twoPages(t)
	run := func(recrawl time.Duration, until func() bool, within time.Duration) {
		t.Helper()
		cfg := testConfig(h.URL("/"))
		cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, recrawl
		runFor(t, db, cfg, within, until)
	}
	fetched := func(n int) func() bool {
		return func() bool { return h.Count("/") >= n && h.Count("/a") >= n }
	}
	run(0, nil, 10*time.Second) // a plain crawl: drains
	if !fetched(1)() {
		t.Fatal("the plain crawl fetched nothing")
	}
	run(300*time.Millisecond, fetched(2), 10*time.Second)
	if !fetched(2)() {
		t.Fatalf("run as a daemon, the plain crawl's pages were not rechecked: / %d, /a %d requests", h.Count("/"), h.Count("/a"))
	}
	// Scheduled an hour ahead, then the interval goes down.
	run(time.Hour, func() bool { return false }, 500*time.Millisecond)
	before := h.Count("/a")
	run(300*time.Millisecond, fetched(before+1), 10*time.Second)
	if h.Count("/a") <= before {
		t.Errorf("after the interval went from 1h to 300ms, /a was not rechecked within 10 s")
	}
	for _, v := range h.Violations(20*time.Millisecond, crawltest.Slack, nil) {
		t.Error(v)
	}
}

// twoPages is a host whose / links /a, and a fresh state file, both
// closed when the test ends.
func twoPages(t *testing.T) (*crawltest.Host, *storage.DB) {
	w := crawltest.NewWeb()
	t.Cleanup(w.Close)
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/a">a</a>`},
		"/a":          {Body: `<title>A</title>`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	t.Cleanup(func() { db.Close() })
	return h, db
}

// runFor runs a crawl of cfg on db until until holds (nil: until it
// drains) or d has passed.
func runFor(t *testing.T, db *storage.DB, cfg Config, d time.Duration, until func() bool) {
	t.Helper()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	if until != nil {
		for !until() && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A daemon (1s) stops with its pages scheduled; an offline start without
// an interval (`politecrawl seed` with a config lacking
// daemon.recrawl_interval) makes the next daemon run sweep; it restarts
// after the pages fell due, and they are queued for their rechecks before
// the sweep comes to them. Each page is due once: it must be fetched once
// (the sweep queued them a second time).
func TestRecrawlSweepSkipsQueuedRechecks(t *testing.T) {
	h, db := twoPages(t)
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, time.Second
	runFor(t, db, cfg, 5*time.Second, func() bool { return h.Count("/a") >= 1 })
	off := cfg
	off.Recrawl = 0
	if _, err := New(db, off); err != nil { // restore only, as seed does
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the schedule falls due
	b := h.Count("/a")
	// Until its recheck, and 300 ms more (a second fetch would follow at
	// once; the next due one is an interval, 1 s, later).
	var rechecked time.Time
	runFor(t, db, cfg, 10*time.Second, func() bool {
		if rechecked.IsZero() && h.Count("/a") > b {
			rechecked = time.Now()
		}
		return !rechecked.IsZero() && time.Since(rechecked) > 300*time.Millisecond
	})
	if n := h.Count("/a") - b; n != 1 {
		t.Errorf("/a fetched %d times for one due recheck", n)
	}
}

// A sweep cut short (after one chunk), a run without an interval that
// fetches new pages, then the daemon again: the sweep starts over, and the
// new pages are scheduled too (resumed, it skipped those before its
// cursor and recorded the schedule as made).
func TestRecrawlSweepStartsOverAfterARunWithout(t *testing.T) {
	h, db := twoPages(t)
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay = 20 * time.Millisecond
	off := cfg
	off.Recrawl, off.Seeds = 0, nil
	if _, err := New(db, off); err != nil { // a file crawled without an interval
		t.Fatal(err)
	}
	now := time.Now().UTC()
	db.Update(func(tx *storage.Tx) error {
		for i := range 1500 {
			u := fmt.Sprintf("http://zzz.test/%04d", i)
			if err := tx.PutURL(&storage.URLRecord{URL: u, State: storage.Fetched, Status: 200, FetchedAt: now, CheckedAt: now}, ""); err != nil {
				return err
			}
		}
		return nil
	})
	on := cfg
	on.Recrawl, on.Seeds = time.Hour, nil
	c, err := New(db, on)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sweepSome(); err != nil { // one chunk, then killed
		t.Fatal(err)
	}
	off.Seeds = []string{h.URL("/")}
	runFor(t, db, off, 10*time.Second, nil) // drains: / and /a fetched
	on.Seeds = nil
	runFor(t, db, on, 10*time.Second, func() bool {
		var done bool
		db.View(func(tx *storage.Tx) error { done = tx.Setting(frontier.SettingSweep) == ""; return nil })
		return done
	})
	recs := records(t, db)
	for _, p := range []string{"/", "/a"} {
		r := recs[h.URL(p)]
		if r.State == storage.Fetched && r.NextCheck.IsZero() {
			t.Errorf("%s: fetched, never scheduled, and the schedule is recorded as made", p)
		}
	}
	if r := recs["http://zzz.test/1499"]; r.NextCheck.IsZero() {
		t.Errorf("zzz/1499 not scheduled")
	}
}

// The interval goes up 1h -> 2h: a failed page due in 50 min, with no
// fetch time to count from, keeps its time (it was made due at once).
func TestRecrawlSweepKeepsATimelessSchedule(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig()
	cfg.Recrawl = time.Hour
	if _, err := New(db, cfg); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	next := now.Add(50 * time.Minute).Round(0)
	db.Update(func(tx *storage.Tx) error {
		tx.SetSetting(frontier.SettingRecrawl, "1h0m0s")
		tx.ScheduleDue(storage.Due{At: next, Kind: storage.DuePage, URL: "http://f.test/x"})
		return tx.PutURL(&storage.URLRecord{URL: "http://f.test/x", State: storage.Failed, Error: "dial tcp: connection refused (gave up after 3 attempts)", NextCheck: next}, "")
	})
	cfg.Recrawl = 2 * time.Hour
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !c.front.Sweeping() {
		t.Fatal("no sweep")
	}
	for c.front.Sweeping() {
		if err := c.sweepSome(); err != nil {
			t.Fatal(err)
		}
	}
	r := records(t, db)["http://f.test/x"]
	if r.NextCheck.Before(next) {
		t.Errorf("a longer interval made a failed page due earlier: %v, it was %v", r.NextCheck, next)
	}
}

// A state file from before the interval was kept, crawled without one
// (no schedule at all): run with an interval, its pages are scheduled.
func TestRecrawlSweepOfAnOldFile(t *testing.T) {
	h, db := twoPages(t)
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay = 20 * time.Millisecond
	runFor(t, db, cfg, 10*time.Second, nil)
	db.Update(func(tx *storage.Tx) error { return tx.SetSetting(frontier.SettingRecrawl, "") }) // as before
	cfg.Recrawl = time.Hour
	runFor(t, db, cfg, 5*time.Second, func() bool {
		var done bool
		db.View(func(tx *storage.Tx) error { done = tx.Setting(frontier.SettingRecrawl) == "1h0m0s"; return nil })
		return done
	})
	for _, p := range []string{"/", "/a"} {
		if r := records(t, db)[h.URL(p)]; !r.Scheduled() {
			t.Errorf("%s not scheduled (next check %v); schedule recorded as made", p, r.NextCheck)
		}
	}
}

// A state file from before the interval was kept, crawled as a daemon and
// stopped while / and /a were queued for their recheck (NextCheck zero, as
// the old requeue left it): with the same interval, each is fetched once
// (the sweep must not take them for pages never scheduled and queue them
// again). In such a file, pages never scheduled stay so: they cannot be
// told from queued rechecks.
func TestRecrawlSweepOfAnOldDaemonFile(t *testing.T) {
	h, db := twoPages(t)
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay = 20 * time.Millisecond
	runFor(t, db, cfg, 10*time.Second, nil) // drains
	old := time.Now().Add(-2 * time.Hour).UTC()
	if err := db.Update(func(tx *storage.Tx) error {
		for _, s := range []string{frontier.SettingRecrawl, frontier.SettingSweep, frontier.SettingSweepAfter} {
			if err := tx.SetSetting(s, ""); err != nil {
				return err
			}
		}
		// Other pages of the old daemon's crawl are scheduled.
		if err := tx.ScheduleDue(storage.Due{At: time.Now().Add(time.Hour).Round(0), Kind: storage.DuePage, URL: "http://other.test/x"}); err != nil {
			return err
		}
		for _, p := range []string{"/", "/a"} {
			r, err := tx.GetURL(h.URL(p))
			if err != nil {
				return err
			}
			r.FetchedAt, r.CheckedAt, r.NextCheck, r.Attempts = old, old, time.Time{}, 0
			if err := tx.PutURL(r, r.State); err != nil {
				return err
			}
			if err := tx.Enqueue(urlnorm.Authority(r.URL), r.URL); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b, ba := h.Count("/"), h.Count("/a")
	cfg.Recrawl, cfg.Seeds = time.Hour, nil
	runFor(t, db, cfg, 1500*time.Millisecond, func() bool { return false })
	if n, na := h.Count("/")-b, h.Count("/a")-ba; n != 1 || na != 1 {
		t.Errorf("one due recheck each: / fetched %d times, /a %d times", n, na)
	}
}

// A recheck that robots.txt now disallows is settled without a fetch: its
// record is no longer marked queued for a recheck.
func TestRecrawlDisallowedRecheckIsNotQueued(t *testing.T) {
	h, db := twoPages(t)
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl, cfg.RobotsTTL = 20*time.Millisecond, 300*time.Millisecond, 100*time.Millisecond
	runFor(t, db, cfg, 10*time.Second, func() bool {
		if h.Count("/a") >= 1 {
			h.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nDisallow: /a\n"})
			r := records(t, db)[h.URL("/a")]
			return r != nil && r.State == storage.Disallowed
		}
		return false
	})
	if r := records(t, db)[h.URL("/a")]; r.State != storage.Disallowed || r.NextCheck.Equal(storage.CheckQueued) {
		t.Errorf("/a after its recheck was disallowed: %s, next check %v; want disallowed, not marked queued", r.State, r.NextCheck)
	}
}

// TestRecrawlDisallowedRecheckIsFetchedWhenAllowed: a page robots.txt
// disallows by its recheck is recorded disallowed with nothing left of its
// last response (status 0, no links), stays on the recheck schedule, and
// is fetched again at a recheck once robots.txt allows it again.
func TestRecrawlDisallowedRecheckIsFetchedWhenAllowed(t *testing.T) {
	h, db := twoPages(t)
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl, cfg.RobotsTTL = 20*time.Millisecond, 300*time.Millisecond, 100*time.Millisecond
	var disallowed *storage.URLRecord
	runFor(t, db, cfg, 10*time.Second, func() bool {
		switch r := records(t, db)[h.URL("/a")]; {
		case disallowed == nil && h.Count("/a") >= 1:
			h.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nDisallow: /a\n"})
			if r != nil && r.State == storage.Disallowed {
				disallowed = r
				h.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nAllow: /\n"})
			}
		case disallowed != nil:
			return h.Count("/a") >= 2 && r.State == storage.Fetched
		}
		return false
	})
	if disallowed == nil {
		t.Fatal("/a was never disallowed on its recheck")
	}
	if d := disallowed; d.Status != 0 || len(d.Links) != 0 || d.Title != "" || !d.Scheduled() || !strings.HasPrefix(d.Error, "robots.txt: Disallow: /a") {
		t.Errorf("/a disallowed on its recheck: status %d, title %q, links %v, error %q, next check %v; want status 0, nothing of the last response, the rule, a time",
			d.Status, d.Title, d.Links, d.Error, d.NextCheck)
	}
	if r := records(t, db)[h.URL("/a")]; h.Count("/a") < 2 || r.State != storage.Fetched || r.Status != 200 || r.Title != "A" {
		t.Errorf("/a once robots.txt allows it again: fetched %d times, %s %d %q; want fetched again, 200", h.Count("/a"), r.State, r.Status, r.Title)
	}
}

// TestRereadSitemapDropsEarlyEntries: a sitemap's re-read entry that comes
// less than an interval after its last read is stale (a sweep schedules
// every read sitemap, whatever entries it had; sitemap entries carry no
// time to match): the sitemap stays read. One an interval after makes it
// pending again.
func TestRereadSitemapDropsEarlyEntries(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig()
	cfg.Recrawl = time.Hour
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := c.cfg.Now()
	for _, tc := range []struct {
		readAgo time.Duration
		want    string
	}{{30 * time.Minute, smRead}, {59 * time.Minute, smRead}, {time.Hour, smPending}, {2 * time.Hour, smPending}} {
		const sm = "http://s.test/sitemap.xml"
		var got string
		if err := c.update(func(tx *storage.Tx) error {
			if err := tx.PutSitemap(&storage.SitemapRecord{URL: sm, Host: "s.test", State: smRead, FetchedAt: now.Add(-tc.readAgo)}); err != nil {
				return err
			}
			// An entry due now, as a sweep or the last read made it.
			if err := tx.ScheduleDue(storage.Due{At: now, Kind: storage.DueSitemap, URL: sm}); err != nil {
				return err
			}
			if err := c.front.Promote(tx, now); err != nil {
				return err
			}
			r, err := tx.GetSitemap(sm)
			got = r.State
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("read %v ago, an entry due now leaves it %s, want %s", tc.readAgo, got, tc.want)
		}
	}
}

// TestLastmodNotMovedIsNotDueAgain: a page a sitemap's lastmod made due,
// then found unchanged by its recheck, is not due again at the next
// re-read of the sitemap for the same lastmod (it was: that lastmod is
// still after the page's fetch); a lastmod after the recheck makes it due.
func TestLastmodNotMovedIsNotDueAgain(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig("http://a.test/")
	cfg.Recrawl = time.Hour
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fetched := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	checked := fetched.Add(3 * time.Hour) // a 304 after the sitemap said 1h
	db.Update(func(tx *storage.Tx) error {
		u, seq, _ := tx.Head("a.test")
		c.front.Finish(tx, "a.test", seq)
		return tx.PutURL(&storage.URLRecord{URL: u, State: storage.Fetched, FetchedAt: fetched, CheckedAt: checked,
			Lastmod: fetched.Add(time.Hour), NextCheck: checked.Add(time.Hour)}, storage.Queued)
	})
	for _, c2 := range []struct {
		lastmod time.Time
		queued  bool
	}{
		{fetched.Add(time.Hour), false},     // the lastmod acted on already
		{fetched.Add(2 * time.Hour), false}, // moved, but before the recheck that found it unchanged
		{checked.Add(time.Hour), true},      // after it: due now
	} {
		db.Update(func(tx *storage.Tx) error {
			_, err := c.front.LastmodNewer(tx, "http://a.test/", c2.lastmod, c.cfg.Now())
			return err
		})
		db.View(func(tx *storage.Tx) error {
			if _, _, queued := tx.Head("a.test"); queued != c2.queued {
				t.Errorf("lastmod %v: queued %v, want %v", c2.lastmod, queued, c2.queued)
			}
			return nil
		})
	}
}

// TestAdaptiveRechecksWhatChanges: under the adaptive policy a page whose
// body changes between checks is rechecked far more often than one served
// again with the same body (200s without validators: a 200 alone is not a
// change). Under the fixed policy both would be rechecked alike.
func TestAdaptiveRechecksWhatChanges(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/same">s</a><a href="/changing">c</a>`},
		"/same":       {Body: `<title>Same</title>`},
		"/changing":   {Body: `<title>v0</title>`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 200*time.Millisecond
	cfg.Freshness = freshness.Policy{Adaptive: true, Min: 100 * time.Millisecond, Max: 10 * time.Second, Share: 0.5}
	stop := make(chan struct{})
	changer := make(chan struct{})
	go func() {
		defer close(changer)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(40 * time.Millisecond):
				h.SetPage("/changing", &crawltest.Page{Body: fmt.Sprintf("<title>v%d</title>", i)})
			}
		}
	}()
	start := time.Now()
	runFor(t, db, cfg, 10*time.Second, func() bool { return time.Since(start) > 3*time.Second })
	close(stop)
	<-changer
	same, changing := h.Count("/same"), h.Count("/changing")
	t.Logf("in 3 s: /changing fetched %d times, /same %d", changing, same)
	if changing < 2*same {
		t.Errorf("in 3 s: /changing fetched %d times, /same %d; want /changing at least twice as often", changing, same)
	}
	for _, v := range h.Violations(cfg.DefaultDelay, crawltest.Slack, nil) {
		t.Error(v)
	}
	db.View(func(tx *storage.Tx) error {
		r, _ := tx.GetURL(h.URL("/changing"))
		if r == nil || r.ChangeCount == 0 || r.Fingerprint == 0 {
			t.Errorf("/changing's record has no changes counted: %+v", r)
		}
		r, _ = tx.GetURL(h.URL("/same"))
		if r == nil || r.ChangeChecks == 0 || r.ChangeCount != 0 {
			t.Errorf("/same's record: want checks and no change: %+v", r)
		}
		return nil
	})
}

// A page stored, then its site says Content-Usage: train-ai=n with body
// and ETag unchanged: the rechecks are 304s carrying the header, and the
// refusal applies to them as to a 200 (the stored body goes).
func TestRecheck304AppliesContentUse(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/p">s</a>`},
		"/p":          {Body: `<title>P</title>text`, ETag: `"p-1"`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 300*time.Millisecond
	cfg.Purpose = "ai-train"
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, ctx, "first fetch", func() bool { return h.Count("/p") >= 1 })
	h.SetPage("/p", &crawltest.Page{Body: `<title>P</title>text`, ETag: `"p-1"`, Header: map[string]string{"Content-Usage": "train-ai=n"}})
	n := h.Count("/p")
	waitFor(t, ctx, "two 304 rechecks", func() bool { return h.Count("/p") >= n+2 && statusSeen(h, "/p", 304) })
	cancel()
	<-done
	db.View(func(tx *storage.Tx) error {
		b, _ := tx.Body(h.URL("/p"))
		rec, _ := tx.GetURL(h.URL("/p"))
		if len(b) > 0 {
			t.Errorf("the site refuses ai-train on its 304s and the body is still stored: %q", b)
		}
		if !strings.HasSuffix(rec.Error, ": not stored") || rec.Title != "" {
			t.Errorf("record error %q title %q, want a not-stored reason and no title", rec.Error, rec.Title)
		}
		if u, ok := rec.ContentUse["ai-train"]; !ok || u.Value != "no" || u.Source != "header Content-Usage" {
			t.Errorf("record content_use %v, want ai-train no from header Content-Usage", rec.ContentUse)
		}
		return nil
	})
}

// A site refuses ai-train on a page, then lifts the refusal without
// changing the page or its ETag: the recheck after the refusal is a full
// GET (a 304 would keep the page not stored for good) and the body is
// stored again.
func TestRecheckAfterRefusalLiftedStoresBody(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	refused := map[string]string{"Content-Usage": "train-ai=n"}
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/p">s</a>`},
		"/p":          {Body: `<title>P</title>text`, ETag: `"p-1"`, Header: refused},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 300*time.Millisecond
	cfg.Purpose = "ai-train"
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, ctx, "first fetch", func() bool { return h.Count("/p") >= 1 })
	h.SetPage("/p", &crawltest.Page{Body: `<title>P</title>text`, ETag: `"p-1"`})
	n := h.Count("/p")
	waitFor(t, ctx, "rechecks after the refusal is lifted", func() bool { return h.Count("/p") >= n+2 })
	cancel()
	<-done
	db.View(func(tx *storage.Tx) error {
		b, _ := tx.Body(h.URL("/p"))
		rec, _ := tx.GetURL(h.URL("/p"))
		if len(b) == 0 || rec.Error != "" || rec.Title != "P" {
			t.Errorf("refusal lifted and page rechecked: record error %q title %q, stored body %q; want stored", rec.Error, rec.Title, b)
		}
		return nil
	})
}

// TestRecheckGoneDropsOldBody: a page fetched with a body that answers
// 410 on its recheck keeps neither its old body nor its old title beside
// the new record (both stayed: the body was dropped only for parsed pages).
func TestRecheckGoneDropsOldBody(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<title>Root</title>hello`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 300*time.Millisecond
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for h.Count("/") < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	h.SetPage("/", &crawltest.Page{Status: 410, Body: "gone"})
	for !statusSeen(h, "/", 410) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	<-done
	db.View(func(tx *storage.Tx) error {
		rec, _ := tx.GetURL(h.URL("/"))
		if rec == nil || rec.Status != 410 {
			t.Fatalf("record %+v, want the recheck's HTTP 410", rec)
		}
		if rec.Title != "" {
			t.Errorf("record says HTTP 410 but keeps the old title %q", rec.Title)
		}
		if tx.HasBody(rec.URL) {
			b, _ := tx.Body(rec.URL)
			t.Errorf("record says HTTP 410 but the state file still holds the old body %q", b)
		}
		return nil
	})
}
