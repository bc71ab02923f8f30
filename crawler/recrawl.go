package crawler

import (
	"fmt"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// unqueued marks a page whose recheck was decided (fetched, failed,
// refused) as no longer queued for it.
func unqueued(rec *storage.URLRecord) {
	if rec.NextCheck.Equal(storage.CheckQueued) {
		rec.NextCheck = time.Time{}
	}
}

// settleSchedule is the schedule of a page decided without a request. A
// page fetched before and disallowed now (robots.txt changed before its
// recheck) forgets its last response, which it may no longer read, and
// stays on the schedule, so that a recheck fetches it once robots.txt
// allows it again; any other leaves the schedule.
func (c *Crawler) settleSchedule(tx *storage.Tx, rec *storage.URLRecord) error {
	if rec.State != storage.Disallowed || rec.FetchedAt.IsZero() {
		unqueued(rec)
		return nil
	}
	rec.ForgetResponse()
	return c.scheduleCheck(tx, rec)
}

// scheduleCheck makes a fetched (or failed, or disallowed since its
// fetch: see storage.URLRecord.Recheckable) page due again Recrawl after
// now. The due entry carries the time, and so does the record: an entry
// whose time no longer matches the record's NextCheck is stale.
func (c *Crawler) scheduleCheck(tx *storage.Tx, rec *storage.URLRecord) error {
	if c.cfg.Recrawl <= 0 || !rec.Recheckable() {
		unqueued(rec)
		return nil
	}
	at := c.cfg.Now().Add(c.cfg.Recrawl).Round(0)
	rec.NextCheck = at
	c.noteDue(at)
	return tx.ScheduleDue(storage.Due{At: at, Kind: storage.DuePage, URL: rec.URL})
}

func (c *Crawler) scheduleSitemap(tx *storage.Tx, url string) error {
	if c.cfg.Recrawl <= 0 {
		return nil
	}
	at := c.cfg.Now().Add(c.cfg.Recrawl).Round(0)
	c.noteDue(at)
	return tx.ScheduleDue(storage.Due{At: at, Kind: storage.DueSitemap, URL: url})
}

func (c *Crawler) noteDue(at time.Time) {
	if c.nextDue.IsZero() || at.Before(c.nextDue) {
		c.nextDue = at
	}
}

// promoteDue moves recrawls whose time has come into their hosts' queues
// (pages) or sitemap lists (sitemaps), in one transaction.
func (c *Crawler) promoteDue() error {
	now := c.cfg.Now()
	if c.nextDue.IsZero() || c.nextDue.After(now) {
		return nil
	}
	return c.update(func(tx *storage.Tx) error {
		due, err := tx.PopDue(now, 10000)
		if err != nil {
			return err
		}
		for _, d := range due {
			if d.Kind == storage.DueSitemap {
				err = c.rereadSitemap(tx, d.URL)
			} else {
				err = c.recheck(tx, d)
			}
			if err != nil {
				return err
			}
		}
		c.nextDue = time.Time{}
		if t, ok := tx.NextDue(); ok {
			c.nextDue = t
		}
		return nil
	})
}

// recheck queues a page for its recrawl, unless the entry is stale.
func (c *Crawler) recheck(tx *storage.Tx, d storage.Due) error {
	rec, err := tx.GetURL(d.URL)
	if err != nil || rec == nil || !rec.NextCheck.Equal(d.At) {
		return err
	}
	return c.requeue(tx, rec)
}

// requeue puts a decided page back at the tail of its host's queue for a
// recheck. Its record keeps its state (and export data) meanwhile.
func (c *Crawler) requeue(tx *storage.Tx, rec *storage.URLRecord) error {
	rec.NextCheck, rec.Attempts = storage.CheckQueued, 0
	if err := tx.PutURL(rec, rec.State); err != nil {
		return err
	}
	return c.front.Requeue(tx, rec.URL, c.cfg.Now())
}

// rereadSitemap makes a read sitemap pending again, unless it was read
// less than an interval ago: its entry is then a stale one. Sitemap
// entries carry no time to match, unlike pages, and a sweep schedules
// every read sitemap whatever entries it had; an entry made when it was
// read comes an interval after, and one a sweep made, no sooner.
func (c *Crawler) rereadSitemap(tx *storage.Tx, url string) error {
	rec, err := tx.GetSitemap(url)
	if err != nil || rec == nil || rec.State != smRead {
		return err
	}
	if c.cfg.Now().Sub(rec.FetchedAt) < c.cfg.Recrawl {
		return nil
	}
	rec.State = smPending
	if err := tx.PutSitemap(rec); err != nil {
		return err
	}
	c.front.Reread(rec.Host, url, c.cfg.Now())
	return nil
}

// lastmodNewer makes a page a sitemap lists due at once when the sitemap
// says it changed after our fetch. It reports whether the URL was known.
func (c *Crawler) lastmodNewer(tx *storage.Tx, url string, lastmod time.Time) (bool, error) {
	rec, err := tx.GetURL(url)
	if err != nil || rec == nil {
		return false, err
	}
	if c.cfg.Recrawl > 0 && rec.State == storage.Fetched && rec.Scheduled() &&
		!lastmod.IsZero() && lastmod.After(rec.FetchedAt) {
		rec.Lastmod = lastmod
		return true, c.requeue(tx, rec)
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
const (
	settingRecrawl    = "recrawl_interval" // the interval the schedule was made with ("0s": pages fetched since have none)
	settingSweep      = "recrawl_sweep"    // the interval of a sweep under way ("<interval>[ scheduled-only]")
	settingSweepAfter = "recrawl_sweep_after"
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

// planSweep decides, as a crawl starts, whether the recrawl schedule must
// be redone, and records a run without an interval.
func (c *Crawler) planSweep(tx *storage.Tx) error {
	if !tx.Initialised() {
		return nil
	}
	prev := tx.Setting(settingRecrawl)
	if c.cfg.Recrawl <= 0 {
		if prev == "0s" && tx.Setting(settingSweep) == "" {
			return nil
		}
		// Pages fetched from now on get no next check: a later run with
		// an interval sweeps them all, from the start.
		for name, v := range map[string]string{settingRecrawl: "0s", settingSweep: "", settingSweepAfter: ""} {
			if err := tx.SetSetting(name, v); err != nil {
				return err
			}
		}
		return nil
	}
	want := c.cfg.Recrawl.String()
	if prev == want {
		return nil
	}
	sweep := want
	if prev == "" && tx.CountDue() > 0 {
		sweep += " scheduled-only"
	}
	if f := strings.Fields(tx.Setting(settingSweep)); len(f) > 0 && f[0] == want {
		sweep = tx.Setting(settingSweep) // the same sweep, cut short: go on
	} else {
		if err := tx.SetSetting(settingSweep, sweep); err != nil {
			return err
		}
		if err := tx.SetSetting(settingSweepAfter, ""); err != nil {
			return err
		}
	}
	c.sweep = &recrawlSweep{interval: want, after: tx.Setting(settingSweepAfter), scheduledOnly: strings.HasSuffix(sweep, " scheduled-only")}
	c.log.Info("recrawl interval changed: scheduling fetched pages again", "interval", want, "was", prev)
	return nil
}

// sweepSome schedules the next chunk of records of the sweep: each page
// on the recrawl schedule (fetched, failed, or disallowed since its
// fetch) not queued for its recheck now, due Recrawl
// after it was last fetched or checked, or at once if that is past (a
// page with neither time keeps the time it had, or is due Recrawl from
// now). An old entry of a page left in the schedule goes stale (its time
// no longer matches the record's NextCheck). At the end the read sitemaps
// are scheduled too (a re-read too soon after the last is dropped, see
// rereadSitemap), and the interval recorded.
func (c *Crawler) sweepSome() error {
	s := c.sweep
	now := c.cfg.Now()
	return c.update(func(tx *storage.Tx) error {
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
			at := c.dueAfter(seen, now)
			switch {
			case seen.IsZero() && r.Scheduled():
				continue // no time to count from: it keeps its own
			case seen.IsZero():
				at = now.Add(c.cfg.Recrawl).Round(0)
			}
			r.NextCheck = at
			if err := tx.PutURL(r, r.State); err != nil {
				return err
			}
			c.noteDue(at)
			if err := tx.ScheduleDue(storage.Due{At: at, Kind: storage.DuePage, URL: r.URL}); err != nil {
				return err
			}
		}
		if last != "" {
			s.after = last
		}
		if more {
			return tx.SetSetting(settingSweepAfter, s.after)
		}
		if err := c.sweepSitemaps(tx, now); err != nil {
			return err
		}
		c.sweep = nil
		c.log.Info("recrawl schedule made", "interval", s.interval)
		for name, v := range map[string]string{settingRecrawl: s.interval, settingSweep: "", settingSweepAfter: ""} {
			if err := tx.SetSetting(name, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// dueAfter is when something last fetched at seen is due: Recrawl later,
// or now if that is past.
func (c *Crawler) dueAfter(seen, now time.Time) time.Time {
	at := seen.Add(c.cfg.Recrawl)
	if at.Before(now) {
		at = now
	}
	return at.Round(0)
}

// sweepSitemaps schedules the re-read of every sitemap read.
func (c *Crawler) sweepSitemaps(tx *storage.Tx, now time.Time) error {
	var read []*storage.SitemapRecord
	if err := tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
		if r.State == smRead {
			read = append(read, r)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, r := range read {
		at := c.dueAfter(r.FetchedAt, now)
		c.noteDue(at)
		if err := tx.ScheduleDue(storage.Due{At: at, Kind: storage.DueSitemap, URL: r.URL}); err != nil {
			return err
		}
	}
	return nil
}
