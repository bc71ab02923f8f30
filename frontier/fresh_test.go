package frontier

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/storage"
)

var adaptivePolicy = freshness.Policy{Adaptive: true, Min: time.Hour, Max: 30 * 24 * time.Hour, Share: 0.5}

// freshFrontier is a Frontier on db with the recheck policy p (Recrawl a
// day), restored from it.
func freshFrontier(t *testing.T, db *storage.DB, p freshness.Policy, now time.Time) *Frontier[int] {
	t.Helper()
	f := New[int](Options{Recrawl: 24 * time.Hour, Freshness: p, Now: func() time.Time { return now }})
	if err := db.Update(func(tx *storage.Tx) error {
		if err := f.Restore(tx, false, now); err != nil {
			return err
		}
		return f.PlanSweep(tx)
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

// sweepAll runs f's sweep, if it has one, to its end.
func sweepAll(t *testing.T, db *storage.DB, f *Frontier[int], now time.Time) {
	t.Helper()
	for f.Sweeping() {
		if err := db.Update(func(tx *storage.Tx) error { return f.SweepSome(tx, now) }); err != nil {
			t.Fatal(err)
		}
	}
}

// checkPage records a fetch of url at now that found its body with
// fingerprint fp, and schedules its next check, as the crawler does; it
// returns the interval the page got.
func checkPage(t *testing.T, db *storage.DB, f *Frontier[int], url string, fp uint64, now time.Time) time.Duration {
	t.Helper()
	var next time.Time
	if err := db.Update(func(tx *storage.Tx) error {
		rec, err := tx.GetURL(url)
		if err != nil {
			return err
		}
		if rec == nil {
			rec = &storage.URLRecord{URL: url, State: storage.Queued}
		}
		prev := rec.State
		seen := rec.FetchedAt
		f.Checked("a.test", rec, seen, fp, now)
		rec.State, rec.FetchedAt, rec.CheckedAt = storage.Fetched, now, now
		if err := f.ScheduleCheck(tx, rec, now); err != nil {
			return err
		}
		next = rec.NextCheck
		if err := tx.PutURL(rec, prev); err != nil {
			return err
		}
		return f.Save(tx, "a.test")
	}); err != nil {
		t.Fatal(err)
	}
	return next.Sub(now)
}

// TestAdaptiveScheduleSurvivesARestart: pages checked under the adaptive
// policy, then the frontier made again from the state file: a page's
// next interval is the same as it would have been without the restart
// (its statistics are in its record, its host's rates in the host's).
func TestAdaptiveScheduleSurvivesARestart(t *testing.T) {
	db := mustDB(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := freshFrontier(t, db, adaptivePolicy, t0)
	sweepAll(t, db, f, t0)
	urls := []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"}
	for i := range 6 {
		at := t0.Add(time.Duration(i) * 6 * time.Hour)
		for j, u := range urls {
			checkPage(t, db, f, u, uint64(1+i*j), at) // page 1 never changes
		}
	}
	at := t0.Add(40 * time.Hour)
	f2 := freshFrontier(t, db, adaptivePolicy, at)
	if f2.Sweeping() {
		t.Fatal("the same policy made a sweep")
	}
	if got := f2.freshHosts["a.test"]; got == nil || got.Pages() != len(urls) {
		t.Fatalf("restored host histogram: %+v, want %d pages", got, len(urls))
	}
	var after []time.Duration
	for _, u := range urls {
		rec := mustGet(t, db, u)
		want, got := f.interval(rec, at), f2.interval(rec, at)
		if got != want {
			t.Errorf("%s: interval %v after a restart, %v before", u, got, want)
		}
		after = append(after, got)
	}
	if after[0] <= after[2] {
		t.Errorf("the page never changed got %v, the one changing at each check %v: want it longer", after[0], after[2])
	}
}

func mustGet(t *testing.T, db *storage.DB, url string) *storage.URLRecord {
	t.Helper()
	var rec *storage.URLRecord
	if err := db.View(func(tx *storage.Tx) (err error) {
		rec, err = tx.GetURL(url)
		return err
	}); err != nil || rec == nil {
		t.Fatalf("get %s: %v %v", url, rec, err)
	}
	return rec
}

// TestPolicyChangeSweeps: a state file scheduled under the fixed policy,
// opened with the adaptive one, is rescheduled by a sweep (gradually,
// chunk by chunk, as an interval change is); opened again with the same
// policy it is not.
func TestPolicyChangeSweeps(t *testing.T) {
	db := mustDB(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := freshFrontier(t, db, freshness.Policy{}, t0)
	sweepAll(t, db, f, t0)
	if d := checkPage(t, db, f, "http://a.test/1", 1, t0); d != 24*time.Hour {
		t.Fatalf("fixed policy: interval %v, want 24h", d)
	}
	f2 := freshFrontier(t, db, adaptivePolicy, t0.Add(time.Hour))
	if !f2.Sweeping() {
		t.Fatal("a change to the adaptive policy made no sweep")
	}
	if err := db.Update(func(tx *storage.Tx) error { return f2.SweepSome(tx, t0.Add(time.Hour)) }); err != nil {
		t.Fatal(err)
	}
	if f2.Sweeping() {
		t.Fatal("the sweep of one page did not end")
	}
	if h := f2.freshHosts["a.test"]; h == nil || h.Pages() != 1 {
		t.Errorf("after the sweep the host's histogram holds %+v, want the one page", h)
	}
	if f3 := freshFrontier(t, db, adaptivePolicy, t0.Add(2*time.Hour)); f3.Sweeping() {
		t.Error("the same adaptive policy made another sweep")
	}
}

// TestSitemapHintsSeedTheFirstInterval: a new page's first recheck comes
// from its sitemap's changefreq, else its lastmod's age, else the default
// (Recrawl, a day): with a budget that drops none of them, the faster a
// page is said to change, the sooner it is rechecked; "never" waits Max.
func TestSitemapHintsSeedTheFirstInterval(t *testing.T) {
	db := mustDB(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := adaptivePolicy
	p.Share = 4.6e-4 // about 40 requests a day at the default 1 s
	f := freshFrontier(t, db, p, t0)
	sweepAll(t, db, f, t0)
	day := 24 * time.Hour
	pages := []struct {
		changefreq string
		lastmod    time.Time
	}{
		{"hourly", t0.Add(-400 * day)}, // changefreq first
		{"", time.Time{}},              // the default: a day
		{"", t0.Add(-10 * day)},        // lastmod 10 days ago
		{"yearly", time.Time{}},
		{"never", time.Time{}},
	}
	var recs []*storage.URLRecord
	for i, c := range pages {
		rec := &storage.URLRecord{URL: fmt.Sprintf("http://a.test/%d", i), State: storage.Fetched, Changefreq: c.changefreq, Lastmod: c.lastmod}
		f.Checked("a.test", rec, time.Time{}, 1, t0) // its first fetch
		recs = append(recs, rec)
	}
	var prev time.Duration
	for i, rec := range recs {
		d := f.interval(rec, t0)
		if d <= prev {
			t.Errorf("page %d (changefreq %q, lastmod %v): first interval %v, not longer than the one before (%v)",
				i, rec.Changefreq, rec.Lastmod, d, prev)
		}
		prev = d
	}
	if prev != p.Max {
		t.Errorf("changefreq never: first interval %v, want Max", prev)
	}
}

// TestSweepSpendsTheWholeHostsBudget: switched to the adaptive policy, a
// host's pages are rescheduled against all of its pages, not only those
// swept before them: alike pages get alike intervals (the first swept
// would otherwise see a host of one page, and a budget to spare).
func TestSweepSpendsTheWholeHostsBudget(t *testing.T) {
	db := mustDB(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := freshFrontier(t, db, freshness.Policy{}, t0)
	sweepAll(t, db, f, t0)
	for i := range 50 {
		checkPage(t, db, f, fmt.Sprintf("http://a.test/%02d", i), 1, t0)
	}
	p := adaptivePolicy
	p.Share = 50.0 / 86400 / 7 // 50 pages a week at a 1 s delay, before Aim
	f2 := freshFrontier(t, db, p, t0.Add(time.Hour))
	sweepAll(t, db, f2, t0.Add(time.Hour))
	var first, last time.Time
	for i := range 50 {
		rec := mustGet(t, db, fmt.Sprintf("http://a.test/%02d", i))
		if i == 0 {
			first = rec.NextCheck
		}
		last = rec.NextCheck
	}
	if !first.Equal(last) || first.Sub(t0) < 7*24*time.Hour {
		t.Errorf("first page swept due %v, last %v: want both the same, a week or more after their fetch", first.Sub(t0), last.Sub(t0))
	}
}

// TestRecheckBudgetFollowsTheDelayInForce: a host's recheck budget is
// what its delay in force lets through, not its floor: a host whose time
// to first byte triples its delay gets a third of the budget, and a host
// sharing its IP with another under ip_delay gets its share of the
// group's spacing.
func TestRecheckBudgetFollowsTheDelayInForce(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := New[int](Options{Recrawl: 24 * time.Hour, Freshness: adaptivePolicy, IPDelay: 2 * time.Second,
		Delays: DelayPolicy{Default: time.Second, Max: time.Minute, LatencyFactor: 10},
		Now:    func() time.Time { return t0 }})
	for _, h := range []string{"floor.test", "slow.test", "shared1.test", "shared2.test"} {
		f.meet(h, t0)
	}
	f.sched.Observe("slow.test", 300*time.Millisecond, t0) // 10 × 300ms: 3s
	f.sched.SetGroup("shared1.test", "192.0.2.1", t0)
	f.sched.SetGroup("shared2.test", "192.0.2.1", t0) // 2 hosts × 2s ip_delay: 4s each
	budget := func(host string) float64 { return f.recheckBudget(f.fresh(host), host, t0) }
	base := budget("floor.test")
	for _, c := range []struct {
		host string
		want float64 // of the floor's budget
	}{
		{"slow.test", 1.0 / 3},
		{"shared1.test", 1.0 / 4},
	} {
		if got := budget(c.host) / base; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: budget %.3f of a host at its 1s floor, want %.3f", c.host, got, c.want)
		}
	}
}

// TestPageLeavingTheScheduleLeavesTheHistogram: a page queued for its
// recheck and then skipped (a new scope rule at dispatch, a type
// accept_types refuses) is no longer counted in its host's histogram; one
// disallowed now, which stays on the schedule, still is.
func TestPageLeavingTheScheduleLeavesTheHistogram(t *testing.T) {
	for _, c := range []struct {
		name    string
		state   storage.State
		settled bool // decided without a request (SettleSchedule), else after one (ScheduleCheck)
		want    int
	}{
		{"skipped at dispatch", storage.Skipped, true, 2},
		{"skipped after its headers", storage.Skipped, false, 2},
		{"disallowed now", storage.Disallowed, true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := mustDB(t)
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			f := freshFrontier(t, db, adaptivePolicy, t0)
			sweepAll(t, db, f, t0)
			for i := range 3 {
				checkPage(t, db, f, fmt.Sprintf("http://a.test/%d", i), 1, t0)
			}
			if n := f.freshHosts["a.test"].Pages(); n != 3 {
				t.Fatalf("histogram holds %d pages, want 3", n)
			}
			at := t0.Add(48 * time.Hour)
			if err := db.Update(func(tx *storage.Tx) error {
				rec, err := tx.GetURL("http://a.test/0")
				if err != nil {
					return err
				}
				prev := rec.State
				rec.NextCheck = storage.CheckQueued // queued for its recheck
				rec.State = c.state
				if c.settled {
					err = f.SettleSchedule(tx, rec, at)
				} else {
					err = f.ScheduleCheck(tx, rec, at)
				}
				if err != nil {
					return err
				}
				return tx.PutURL(rec, prev)
			}); err != nil {
				t.Fatal(err)
			}
			if n := f.freshHosts["a.test"].Pages(); n != c.want {
				t.Errorf("histogram holds %d pages, want %d", n, c.want)
			}
		})
	}
}
