package frontier

import (
	"time"

	"github.com/politecrawl/politecrawl/robots"
)

// Where a host's spacing comes from (HostView.DelayFrom): the Why
// constants of the delay policy under the names the console knew first.
const (
	DelayDefault     = WhyDefault
	DelayCrawlDelay  = WhyCrawlDelay
	DelayRequestRate = WhyRequestRate
	DelayCapped      = WhyMaxDelay // robots.txt asked for more than the cap
)

// Why a host is held (HostView.HoldWhy), when the Frontier knows.
const (
	HoldBackoff    = WhyBackoff
	HoldRetryAfter = WhyRetryAfter
)

// robotsDelays is what robots.txt asks of agent: Crawl-delay and the
// interval of its Request-rate (zero: none).
func robotsDelays(r *robots.Robots, agent string) (crawlDelay, rateInterval time.Duration) {
	crawlDelay, _ = r.CrawlDelay(agent)
	if rate, ok := r.RequestRate(agent); ok {
		rateInterval = rate.Interval()
	}
	return crawlDelay, rateInterval
}

// Answered records the HTTP status of host's last answer to a page
// request, for status.
func (f *Frontier[H]) Answered(host string, status int) {
	if h := f.sched.Lookup(host); h != nil {
		h.lastStatus = status
	}
}

// Views calls fn with the view of every host the crawl has met, in no
// order: View for each, in one pass over the hosts without a lookup per
// host (a status snapshot of 100,000 hosts: BenchmarkView100k).
func (f *Frontier[H]) Views(now time.Time, fn func(host string, v HostView)) {
	for name, h := range f.sched.hosts {
		v := HostView{InFlight: h.inFlight, HasWork: h.HasQueued() || h.other}
		v.DelayReason = f.sched.delayReason(h, now)
		if h.group != nil {
			v.IP = h.group.ip
		}
		if !v.InFlight && v.HasWork {
			v.NextRequest = h.nextOpen(now)
		}
		fillDetail(&v, h)
		if len(f.fenced) > 0 {
			v.Fenced = f.fenced[name]
		}
		fn(name, v)
	}
}

// PauseHost takes host out of the schedule until PauseHost(host, false)
// (the operator's pause: its work changing does not end it, and its
// record keeps it across a restart; Save writes it). A request in flight
// finishes. It reports whether the crawl knows host.
func (f *Frontier[H]) PauseHost(host string, pause bool, now time.Time) bool {
	h := f.sched.Lookup(host)
	if h == nil {
		return false
	}
	f.sched.stop(h, pause, now)
	return true
}

// HostCount is how many hosts the crawl has met.
func (f *Frontier[H]) HostCount() int { return len(f.sched.hosts) }

// fillDetail fills in what status shows of h besides its slot.
func fillDetail(v *HostView, h *Host) {
	v.Queued, v.Paused, v.Stopped = h.queued, h.paused, h.stopped
	v.HoldUntil, v.Failures, v.LastError, v.LastStatus = h.hold, h.failures, h.lastError, h.lastStatus
	v.Interval, v.DelayFrom = h.spacing, h.spacingWhy
	if v.DelayFrom == "" {
		v.DelayFrom = DelayDefault
	}
	if h.failures > 0 {
		v.HoldWhy = h.holdWhy
	}
}

// viewDetail fills in what status shows of host besides its slot: its
// queue, pause, hold and why, failures, last answer and where its delay
// comes from.
func (f *Frontier[H]) viewDetail(v *HostView, host string) {
	h := f.sched.Lookup(host)
	if h == nil {
		return
	}
	fillDetail(v, h)
	v.Fenced = f.fenced[host]
	v.HasWork = f.HasWork(host)
}
