package frontier

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// The recheck schedule's policy is frontier/freshness; this file keeps its
// per-host part (freshness.Host: the histogram of the host's pages'
// change rates, its new pages a day) beside the host's other state,
// feeds it what fetches saw (Checked), and asks it each page's next
// interval (interval). The per-page part lives in the page's record.

// fresh returns host's part of the schedule, making it the first time.
func (f *Frontier[H]) fresh(host string) *freshness.Host {
	h := f.freshHosts[host]
	if h == nil {
		h = &freshness.Host{}
		f.freshHosts[host] = h
	}
	return h
}

// stats is the change statistics a record holds.
func stats(rec *storage.URLRecord) freshness.Stats {
	return freshness.Stats{Checks: rec.ChangeChecks, Changes: rec.ChangeCount, Millis: rec.ChangeMillis}
}

// prior is the rate assumed for rec's page before any recheck.
func (f *Frontier[H]) prior(rec *storage.URLRecord, now time.Time) float64 {
	return f.policy.Prior(rec.Changefreq, rec.Lastmod, now)
}

// Checked tells the schedule what a fetch of rec's page on host saw: its
// body's fingerprint (0: none, e.g. a 304, whose body is the one stored).
// A first fetch counts as one of the host's new pages; a recheck adds to
// the page's statistics whether the body changed (a new fingerprint, not
// merely a 200) over the time since the page was last seen, prevSeen. It
// changes rec (not written: the caller writes it).
func (f *Frontier[H]) Checked(host string, rec *storage.URLRecord, prevSeen time.Time, fingerprint uint64, now time.Time) {
	if f.recrawl <= 0 {
		return
	}
	h := f.fresh(host)
	old := stats(rec)
	unknown := fingerprint != 0 && rec.Fingerprint == 0 // fetched before fingerprints were kept
	changed := fingerprint != 0 && rec.Fingerprint != 0 && fingerprint != rec.Fingerprint
	if fingerprint != 0 {
		rec.Fingerprint = fingerprint
	}
	if unknown && !prevSeen.IsZero() {
		return // nothing to compare with: the next recheck will have
	}
	if prevSeen.IsZero() {
		h.NoteNew(now)
		h.Move(0, false, f.prior(rec, now))
		return
	}
	st := old.Observe(now.Sub(prevSeen), changed)
	rec.ChangeChecks, rec.ChangeCount, rec.ChangeMillis = st.Checks, st.Changes, st.Millis
	h.Move(old.RateOr(f.prior(rec, now)), true, st.RateOr(f.prior(rec, now)))
}

// interval is how long after now rec's page is checked again: the fixed
// interval, or the adaptive policy's for its statistics and its host's
// budget (its share of what the host's delay allows, less its new pages).
func (f *Frontier[H]) interval(rec *storage.URLRecord, now time.Time) time.Duration {
	if !f.policy.Adaptive {
		return f.recrawl
	}
	host := urlnorm.Authority(rec.URL)
	h := f.fresh(host)
	mu := h.Mu(f.policy, f.recheckBudget(h, host, now))
	return f.policy.Next(stats(rec), f.prior(rec, now), mu)
}

// recheckBudget is host's recheck budget (rechecks a second) for the
// spacing its requests get in practice: its delay in force (the floor
// raised by latency and error backoff, Scheduler.Delay), or its share of
// its IP group's ip_delay when that is slower. The floor alone would
// promise a slow host rechecks its delay cannot fit, starving its new
// pages.
func (f *Frontier[H]) recheckBudget(h *freshness.Host, host string, now time.Time) float64 {
	d, _ := f.sched.Delay(host)
	if sh := f.sched.hosts[host]; sh != nil && sh.group != nil && f.sched.ipDelay > 0 {
		d = max(d, f.sched.ipDelay*time.Duration(max(sh.group.hosts, 1)))
	}
	return h.Budget(f.policy, d, now)
}

// leaveSchedule takes rec off the recheck schedule (see Unqueued). A page
// that was queued for its recheck, so counted in its host's histogram,
// and is not recheckable now (a scope rule or accept_types skipped it)
// leaves the histogram too: else its host's budget would keep being
// shared with a page never checked again.
func (f *Frontier[H]) leaveSchedule(rec *storage.URLRecord, now time.Time) {
	if f.recrawl > 0 && rec.NextCheck.Equal(storage.CheckQueued) && !rec.Recheckable() &&
		(!rec.FetchedAt.IsZero() || !rec.CheckedAt.IsZero()) {
		if h := f.freshHosts[urlnorm.Authority(rec.URL)]; h != nil {
			h.Remove(stats(rec).RateOr(f.prior(rec, now)))
		}
	}
	Unqueued(rec)
}

// policyName is the schedule's setting as the state file keeps it (see
// SettingRecrawl): the fixed interval alone, as before the adaptive
// policy, or the adaptive policy's parameters.
func (f *Frontier[H]) policyName() string {
	if !f.policy.Adaptive {
		return f.recrawl.String()
	}
	return fmt.Sprintf("adaptive %v %v %v %g", f.recrawl, f.policy.Min, f.policy.Max, f.policy.Share)
}

// saveFresh adds host's part of the schedule to its record.
func (f *Frontier[H]) saveFresh(host string, r *storage.HostRecord, now time.Time) {
	h := f.freshHosts[host]
	if h == nil {
		return
	}
	r.Rates = append(r.Rates[:0], h.Counts[:]...)
	r.NewPerDay, r.NewAt = h.NewRate*86400, h.NewAt
	mu := h.Mu(f.policy, f.recheckBudget(h, host, now))
	fr, mean := h.Expected(f.policy, mu)
	r.Freshness, r.MeanIntervalS = fr, mean.Seconds()
}

// restoreFresh reads host's part of the schedule back from its record.
func (f *Frontier[H]) restoreFresh(host string, r storage.HostRecord) {
	if len(r.Rates) == 0 && r.NewPerDay == 0 {
		return
	}
	h := f.fresh(host)
	copy(h.Counts[:], r.Rates)
	h.NewRate, h.NewAt = r.NewPerDay/86400, r.NewAt
}

// sweptRate counts a page of host at rate in the histograms a sweep is
// making. Until the sweep ends, intervals come from the histograms of
// before it: those being made hold only the pages swept so far, and
// would make a host's budget look ample to the first of them.
func (f *Frontier[H]) sweptRate(host string, rate float64) {
	h := f.sweepRates[host]
	if h == nil {
		h = &freshness.Host{}
		f.sweepRates[host] = h
	}
	h.Move(0, false, rate)
}

// endSweepRates puts the histograms a sweep made in place and saves them
// with their hosts' records, in tx. A sweep resumed after a stop counted
// only the pages after the stop; the histograms fill in as pages are
// checked.
func (f *Frontier[H]) endSweepRates(tx *storage.Tx) error {
	for host, swept := range f.sweepRates {
		f.fresh(host).Counts = swept.Counts
		if err := f.Save(tx, host); err != nil {
			return err
		}
	}
	f.sweepRates = nil
	return nil
}
