package frontier

import (
	"fmt"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// Unqueued marks a page whose recheck was decided (fetched, failed,
// refused) as no longer queued for it.
func Unqueued(rec *storage.URLRecord) {
	if rec.NextCheck.Equal(storage.CheckQueued) {
		rec.NextCheck = time.Time{}
	}
}

// settleSchedule is the schedule of a page decided without a request. A
// page fetched before and disallowed now (robots.txt changed before its
// recheck) forgets its last response, which it may no longer read, and
// stays on the schedule, so that a recheck fetches it once robots.txt
// allows it again; any other leaves the schedule.
func (f *Frontier[H]) SettleSchedule(tx *storage.Tx, rec *storage.URLRecord, now time.Time) error {
	if rec.State != storage.Disallowed || rec.FetchedAt.IsZero() {
		f.leaveSchedule(rec, now)
		return nil
	}
	rec.ForgetResponse()
	return f.ScheduleCheck(tx, rec, now)
}

// ScheduleCheck makes a fetched (or failed, or disallowed since its
// fetch: see storage.URLRecord.Recheckable) page due again after now: the
// policy's interval (see fresh.go). The due entry carries the time, and
// so does the record: an entry whose time no longer matches the record's
// NextCheck is stale.
func (f *Frontier[H]) ScheduleCheck(tx *storage.Tx, rec *storage.URLRecord, now time.Time) error {
	if f.recrawl <= 0 || !rec.Recheckable() {
		f.leaveSchedule(rec, now)
		return nil
	}
	at := now.Add(f.interval(rec, now)).Round(0)
	rec.NextCheck = at
	f.noteDue(at)
	return tx.ScheduleDue(storage.Due{At: at, Kind: storage.DuePage, URL: rec.URL})
}

func (f *Frontier[H]) ScheduleSitemap(tx *storage.Tx, url string, now time.Time) error {
	if f.recrawl <= 0 {
		return nil
	}
	at := now.Add(f.recrawl).Round(0)
	f.noteDue(at)
	return tx.ScheduleDue(storage.Due{At: at, Kind: storage.DueSitemap, URL: url})
}

func (f *Frontier[H]) noteDue(at time.Time) {
	if f.nextDue.IsZero() || at.Before(f.nextDue) {
		f.nextDue = at
	}
}

// NextDue is when the next recheck or sitemap re-read is due; zero if
// none is.
func (f *Frontier[H]) NextDue() time.Time { return f.nextDue }

// Promote moves the rechecks whose time has come into their hosts'
// queues (pages) or sitemap lists (sitemaps), in tx.
func (f *Frontier[H]) Promote(tx *storage.Tx, now time.Time) error {
	due, err := tx.PopDue(now, 10000)
	if err != nil {
		return err
	}
	for _, d := range due {
		if d.Kind == storage.DueSitemap {
			err = f.rereadSitemap(tx, d.URL, now)
		} else {
			err = f.recheck(tx, d, now)
		}
		if err != nil {
			return err
		}
	}
	f.nextDue = time.Time{}
	if t, ok := tx.NextDue(); ok {
		f.nextDue = t
	}
	return nil
}

// recheck queues a page for its recrawl, unless the entry is stale.
func (f *Frontier[H]) recheck(tx *storage.Tx, d storage.Due, now time.Time) error {
	rec, err := tx.GetURL(d.URL)
	if err != nil || rec == nil || !rec.NextCheck.Equal(d.At) {
		return err
	}
	return f.requeue(tx, rec, now)
}

// requeue puts a decided page back at the tail of its host's queue for a
// recheck. Its record keeps its state (and export data) meanwhile.
func (f *Frontier[H]) requeue(tx *storage.Tx, rec *storage.URLRecord, now time.Time) error {
	rec.NextCheck, rec.Attempts = storage.CheckQueued, 0
	if err := tx.PutURL(rec, rec.State); err != nil {
		return err
	}
	return f.Requeue(tx, rec.URL, now)
}

// rereadSitemap makes a read sitemap pending again, unless it was read
// less than an interval ago: its entry is then a stale one. Sitemap
// entries carry no time to match, unlike pages, and a sweep schedules
// every read sitemap whatever entries it had; an entry made when it was
// read comes an interval after, and one a sweep made, no sooner.
func (f *Frontier[H]) rereadSitemap(tx *storage.Tx, url string, now time.Time) error {
	rec, err := tx.GetSitemap(url)
	if err != nil || rec == nil || rec.State != SitemapRead {
		return err
	}
	if now.Sub(rec.FetchedAt) < f.recrawl {
		return nil
	}
	rec.State = SitemapPending
	if err := tx.PutSitemap(rec); err != nil {
		return err
	}
	f.Reread(rec.Host, url, now)
	return nil
}

// LastmodNewer makes a page a sitemap lists due at once when the sitemap
// says it changed after our last check of it (a fetch, or a recheck that
// found it unchanged). A lastmod that has not moved since the last one
// acted on does not make it due again, even if it is later than that
// check (a server whose lastmod runs ahead of its pages would otherwise
// have them rechecked at every re-read of the sitemap). It reports
// whether the URL was known.
func (f *Frontier[H]) LastmodNewer(tx *storage.Tx, url string, lastmod, now time.Time) (bool, error) {
	rec, err := tx.GetURL(url)
	if err != nil || rec == nil {
		return false, err
	}
	seen := rec.FetchedAt
	if rec.CheckedAt.After(seen) {
		seen = rec.CheckedAt
	}
	if f.recrawl > 0 && rec.State == storage.Fetched && rec.Scheduled() &&
		!lastmod.IsZero() && lastmod.After(seen) && lastmod.After(rec.Lastmod) {
		rec.Lastmod = lastmod
		return true, f.requeue(tx, rec, now)
	}
	return true, nil
}

// The recrawl schedule is made as pages are fetched: each fetched page is
// due Recrawl after its fetch. A state file crawled without a recrawl
// interval has no schedule, and one crawled with another interval has
// that one's; a run with a recrawl interval redoes the schedule from the
// records (a sweep) when the interval it was made with differs. The
// interval a schedule was made with, and a sweep under way (for which
// interval, how far it got), are kept in the state file: a sweep cut short
// by a kill goes on where it was; a run without an interval in between
// (whose pages get no schedule) makes the next sweep start over.
// The names of the state file's settings the schedule keeps.
const (
	SettingRecrawl    = "recrawl_interval" // the interval the schedule was made with ("0s": pages fetched since have none)
	SettingSweep      = "recrawl_sweep"    // the interval of a sweep under way ("<interval>[ scheduled-only]")
	SettingSweepAfter = "recrawl_sweep_after"
	sweepChunk        = 1000 // records per transaction
)

// recrawlSweep is a sweep under way.
type recrawlSweep struct {
	interval string
	after    string // the last record key done
	// scheduledOnly: a state file from before the interval was kept,
	// with a schedule. There a page queued for its recheck has no mark
	// (its NextCheck is zero, as a page never scheduled): only pages
	// scheduled already are done, so as not to queue such a page twice.
	scheduledOnly bool
}

// PlanSweep decides, as a crawl starts, whether the recrawl schedule must
// be redone: when the interval (or policy) recorded differs, or a state
// file that fetched pages before intervals were recorded has none. It
// records a run without an interval, and a new state file's first one
// (nothing to schedule, nothing changed: no sweep, no log line).
func (f *Frontier[H]) PlanSweep(tx *storage.Tx) error {
	if !tx.Initialised() {
		return nil
	}
	prev := tx.Setting(SettingRecrawl)
	if f.recrawl <= 0 {
		if prev == "0s" && tx.Setting(SettingSweep) == "" {
			return nil
		}
		// Pages fetched from now on get no next check: a later run with
		// an interval sweeps them all, from the start.
		for name, v := range map[string]string{SettingRecrawl: "0s", SettingSweep: "", SettingSweepAfter: ""} {
			if err := tx.SetSetting(name, v); err != nil {
				return err
			}
		}
		return nil
	}
	want := f.policyName()
	if prev == want {
		return nil
	}
	if prev == "" && tx.Setting(SettingSweep) == "" {
		// A new state file (or one only seeded): nothing to schedule
		// again, and no interval it changes from.
		none, err := nothingToSweep(tx)
		if err != nil {
			return err
		}
		if none {
			return tx.SetSetting(SettingRecrawl, want)
		}
	}
	sweep := want
	if prev == "" && tx.CountDue() > 0 {
		sweep += " scheduled-only"
	}
	if cur := strings.TrimSuffix(tx.Setting(SettingSweep), " scheduled-only"); cur == want {
		sweep = tx.Setting(SettingSweep) // the same sweep, cut short: go on
	} else {
		if err := tx.SetSetting(SettingSweep, sweep); err != nil {
			return err
		}
		if err := tx.SetSetting(SettingSweepAfter, ""); err != nil {
			return err
		}
	}
	f.sweep = &recrawlSweep{interval: want, after: tx.Setting(SettingSweepAfter), scheduledOnly: strings.HasSuffix(sweep, " scheduled-only")}
	f.sweepRates = map[string]*freshness.Host{} // the sweep counts every page again
	if prev == "" {
		f.log.Info("recrawl interval recorded for the first time in this state file: scheduling the pages it fetched before", "interval", want)
	} else {
		f.log.Info("recrawl interval changed: scheduling fetched pages again", "interval", want, "was", prev)
	}
	return nil
}

// nothingToSweep reports whether tx holds nothing a sweep would schedule:
// no page fetched, failed or disallowed, no sitemap read.
func nothingToSweep(tx *storage.Tx) (bool, error) {
	n := tx.Counts()
	if n[storage.Fetched]+n[storage.Failed]+n[storage.Disallowed] > 0 {
		return false, nil
	}
	read := false
	if err := tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
		read = read || r.State == SitemapRead
		return nil
	}); err != nil {
		return false, fmt.Errorf("recrawl sweep: read the sitemaps: %w", err)
	}
	return !read, nil
}

// Sweeping reports whether a sweep of the schedule is under way (see
// PlanSweep).
func (f *Frontier[H]) Sweeping() bool { return f.sweep != nil }

// SweepSome schedules the next chunk of records of the sweep: each page
// on the recrawl schedule (fetched, failed, or disallowed since its
// fetch) not queued for its recheck now, due Recrawl
// after it was last fetched or checked, or at once if that is past (a
// page with neither time keeps the time it had, or is due Recrawl from
// now). An old entry of a page left in the schedule goes stale (its time
// no longer matches the record's NextCheck). At the end the read sitemaps
// are scheduled too (a re-read too soon after the last is dropped, see
// rereadSitemap), and the interval recorded.
func (f *Frontier[H]) SweepSome(tx *storage.Tx, now time.Time) error {
	s := f.sweep
	if s == nil {
		return nil
	}
	var recs []*storage.URLRecord
	last, more, err := tx.ForEachURLAfter(s.after, sweepChunk, func(r *storage.URLRecord) error {
		if r.Recheckable() && !r.NextCheck.Equal(storage.CheckQueued) &&
			(!s.scheduledOnly || r.Scheduled()) {
			recs = append(recs, r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recrawl sweep: %w", err)
	}
	for _, r := range recs {
		seen := r.FetchedAt
		if r.CheckedAt.After(seen) {
			seen = r.CheckedAt
		}
		if !seen.IsZero() {
			host := urlnorm.Authority(r.URL)
			f.sweptRate(host, stats(r).RateOr(f.prior(r, now)))
		}
		at := f.recheckAfter(r, seen, now)
		switch {
		case seen.IsZero() && r.Scheduled():
			continue // no time to count from: it keeps its own
		case seen.IsZero():
			at = now.Add(f.interval(r, now)).Round(0)
		}
		r.NextCheck = at
		if err := tx.PutURL(r, r.State); err != nil {
			return err
		}
		f.noteDue(at)
		if err := tx.ScheduleDue(storage.Due{At: at, Kind: storage.DuePage, URL: r.URL}); err != nil {
			return err
		}
	}
	if last != "" {
		s.after = last
	}
	if more {
		return tx.SetSetting(SettingSweepAfter, s.after)
	}
	if err := f.sweepSitemaps(tx, now); err != nil {
		return err
	}
	if err := f.endSweepRates(tx); err != nil {
		return err
	}
	f.sweep = nil
	f.log.Info("recrawl schedule made", "interval", s.interval)
	for name, v := range map[string]string{SettingRecrawl: s.interval, SettingSweep: "", SettingSweepAfter: ""} {
		if err := tx.SetSetting(name, v); err != nil {
			return err
		}
	}
	return nil
}

// recheckAfter is when a page last seen at seen is due: its interval
// later, or now if that is past.
func (f *Frontier[H]) recheckAfter(rec *storage.URLRecord, seen, now time.Time) time.Time {
	at := seen.Add(f.interval(rec, now))
	if at.Before(now) {
		at = now
	}
	return at.Round(0)
}

// dueAfter is when something last fetched at seen is due: Recrawl later,
// or now if that is past.
func (f *Frontier[H]) dueAfter(seen, now time.Time) time.Time {
	at := seen.Add(f.recrawl)
	if at.Before(now) {
		at = now
	}
	return at.Round(0)
}

// sweepSitemaps schedules the re-read of every sitemap read.
func (f *Frontier[H]) sweepSitemaps(tx *storage.Tx, now time.Time) error {
	var read []*storage.SitemapRecord
	if err := tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
		if r.State == SitemapRead {
			read = append(read, r)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, r := range read {
		at := f.dueAfter(r.FetchedAt, now)
		f.noteDue(at)
		if err := tx.ScheduleDue(storage.Due{At: at, Kind: storage.DueSitemap, URL: r.URL}); err != nil {
			return err
		}
	}
	return nil
}
