package frontier

import (
	"time"

	"github.com/politecrawl/politecrawl/robots"
)

// Where a host's spacing comes from (HostView.DelayFrom).
const (
	DelayDefault     = "default"
	DelayCrawlDelay  = "Crawl-delay"
	DelayRequestRate = "Request-rate"
	DelayCapped      = "max delay" // robots.txt asked for more than the cap
)

// Why a host is held (HostView.HoldWhy), when the Frontier knows.
const (
	HoldBackoff    = "backoff"
	HoldRetryAfter = "Retry-After"
)

// delaySource says which term of Delay gave host its spacing.
func (p DelayPolicy) delaySource(crawlDelay, rateInterval time.Duration) string {
	d := p.interval(crawlDelay, rateInterval)
	switch {
	case p.Max > 0 && d == p.Max && max(crawlDelay, rateInterval) > p.Max:
		return DelayCapped
	case d <= p.Default:
		return DelayDefault
	case crawlDelay >= rateInterval:
		return DelayCrawlDelay
	}
	return DelayRequestRate
}

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

// viewDetail fills in what status shows of host besides its slot: its
// queue, pause, hold and why, failures, last answer and where its delay
// comes from.
func (f *Frontier[H]) viewDetail(v *HostView, host string) {
	h := f.sched.Lookup(host)
	if h == nil {
		return
	}
	v.Queued, v.Paused, v.Fenced = h.queued, h.paused, f.fenced[host]
	v.HoldUntil, v.Failures, v.LastError, v.LastStatus = h.hold, h.failures, h.lastError, h.lastStatus
	v.DelayFrom = h.delayFrom
	if v.DelayFrom == "" {
		v.DelayFrom = DelayDefault
	}
	if h.failures > 0 {
		v.HoldWhy = h.holdWhy
	}
	v.HasWork = f.HasWork(host)
}
