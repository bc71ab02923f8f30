package frontier

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// A host's delay is a floor, what robots.txt and the configuration ask
// (Delay), raised by what the server shows of itself:
//
//   - its response time: LatencyFactor times its smoothed time to first
//     byte (TTFB), so the crawl takes at most about 1/LatencyFactor of one
//     of the server's workers however slow it gets;
//   - its errors: a timeout, a 5xx, a 429 or a broken connection doubles
//     the delay in force, and each success halves it again, until it is
//     back to what it would be without errors. A host that failed k times
//     in a row needs k successes to come back; one that keeps failing
//     every other request stays slowed.
//
// Both are bounded by the cap (max_delay) and never lower the floor. The
// error backoff is besides the hold after a failure (Backoff), which keeps
// the host closed for a while before its next try: the hold waits once,
// the doubled delay spaces every request after it until successes bring
// it down.

// Adaptive is the policy of the adaptive delay. The zero value turns it
// off: a host is spaced by its floor alone.
type Adaptive struct {
	// LatencyFactor times the host's smoothed TTFB is a lower bound on its
	// delay; 0 turns it off.
	LatencyFactor float64
	// ErrorBackoff doubles the delay on every failed request and halves
	// what it added on every success.
	ErrorBackoff bool
	// Max caps the delay the two can make (max_delay); 0 or negative
	// means AdaptiveMax.
	Max time.Duration
}

// AdaptiveMax caps the adaptive delay when no max_delay is set: a
// server that answers in minutes is not waited for an hour.
const AdaptiveMax = time.Minute

// errorDelayMin is what the first error doubles when the floor is
// shorter (a crawl with no delay at all): the error backoff never starts
// below 2 × 100 ms.
const errorDelayMin = 100 * time.Millisecond

// The reasons a host's delay is what it is (Scheduler.Delay; status shows
// them).
const (
	WhyDefault      = "default_delay"
	WhyOverride     = "hosts: min_delay"
	WhyCrawlDelay   = "robots.txt Crawl-delay"
	WhyRequestRate  = "robots.txt Request-rate"
	WhyMaxDelay     = "max_delay"
	WhyLatency      = "latency"
	WhyErrorBackoff = "error backoff"
	WhyRetryAfter   = "Retry-After"
	WhyBackoff      = "backoff"
	// WhyBeforeRestart: the first request after a restart waits the
	// interval in force before it (see RestoreHost).
	WhyBeforeRestart = "interval before the restart"
)

// adaptive is what the adaptive delay keeps of one host.
type adaptive struct {
	ttfb     time.Duration // smoothed time to first byte; 0: no sample yet
	errDelay time.Duration // the delay the errors made; 0: none
}

// observe takes a time to first byte into the smoothed one. A slower
// answer moves it half way at once (a struggling server gets relief at
// the next request); a faster one moves it an eighth of the way (TCP's
// gain for its smoothed round trip), so one quick answer does not undo
// the slowdown.
func (a *adaptive) observe(ttfb time.Duration) {
	switch {
	case ttfb <= 0:
	case a.ttfb == 0:
		a.ttfb = ttfb
	case ttfb > a.ttfb:
		a.ttfb += (ttfb - a.ttfb) / 2
	default:
		a.ttfb -= (a.ttfb - ttfb) / 8
	}
}

// failed doubles the delay in force (current).
func (a *adaptive) failed(current time.Duration, p Adaptive) {
	if p.ErrorBackoff {
		a.errDelay = min(2*max(current, errorDelayMin), p.max())
	}
}

// succeeded halves the error delay, and forgets it once it is no longer
// above base (the delay without it). It halves what was in force: an error
// delay above the policy's Max (restored from a run with a larger
// max_delay) counted only up to Max, and halving it from above would have
// kept it there through more successes than the errors asked.
func (a *adaptive) succeeded(base time.Duration, p Adaptive) {
	if a.errDelay = min(a.errDelay, p.max()) / 2; a.errDelay <= base {
		a.errDelay = 0
	}
}

func (p Adaptive) max() time.Duration {
	if p.Max > 0 {
		return p.Max
	}
	return AdaptiveMax
}

// Spacing is a host's delay in force and why: its floor (and the floor's
// reason) raised by the latency and error terms of a, each capped by the
// policy's Max, never below the floor.
func Spacing(floor time.Duration, floorWhy string, a adaptive, p Adaptive) (time.Duration, string) {
	d, why := floor, floorWhy
	if p.LatencyFactor > 0 && a.ttfb > 0 {
		if l := min(time.Duration(p.LatencyFactor*float64(a.ttfb)), p.max()); l > d {
			d, why = l, WhyLatency
		}
	}
	if p.ErrorBackoff {
		if e := min(a.errDelay, p.max()); e > d {
			d, why = e, WhyErrorBackoff
		}
	}
	return d, why
}

// learnt is what a host record keeps of the adaptive delay (Record
// writes it); values no duration can be are dropped.
func learnt(r storage.HostRecord) adaptive {
	return adaptive{ttfb: durationOf(r.TTFBMs, time.Millisecond), errDelay: durationOf(r.ErrorDelayS, time.Second)}
}

// InForce is the delay in force for a host whose record is r, as a
// Scheduler restoring r spaces it: its floor (r.Interval, or floor when
// that is longer) raised by what p makes of the time to first byte and
// the error delay r keeps. What was recorded before these were kept
// gives the floor. It is how long a cluster shard's new owner waits
// before its first request to a host the previous owner had slowed
// down, and the delay status shows of a crawl that is not running.
func (p Adaptive) InForce(floor time.Duration, r storage.HostRecord) time.Duration {
	d, _ := Spacing(max(time.Duration(r.Interval*float64(time.Second)), floor), "", learnt(r), p)
	return d
}

// DelayReason says why host's next request waits what it waits, for
// people: the hold's reason while a hold keeps it closed past its delay
// (WhyRetryAfter, WhyBackoff), else the delay's (see Delay), with the
// smoothed time to first byte when latency sets it.
func (s *Scheduler) DelayReason(host string, now time.Time) string {
	h := s.hosts[host]
	if h == nil {
		return WhyDefault
	}
	return s.delayReason(h, now)
}

// delayReason is DelayReason of h.
func (s *Scheduler) delayReason(h *Host, now time.Time) string {
	if h.holdWhy != "" && h.hold.After(now) && h.hold.After(h.last.Add(h.spacing)) {
		return h.holdWhy
	}
	if h.spacingWhy == WhyLatency {
		return fmt.Sprintf("%s (%g × %v time to first byte)", WhyLatency, s.adaptive.LatencyFactor, h.ad.ttfb.Round(time.Millisecond))
	}
	return h.spacingWhy
}
