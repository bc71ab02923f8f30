package frontier

import (
	"container/heap"
	"time"

	"golang.org/x/time/rate"
)

// Scheduler owns every host of the crawl (see Host) and the politeness
// schedule over them. The zero value is not usable; call NewScheduler. Not
// safe for concurrent use.
type Scheduler struct {
	hosts   map[string]*Host
	ready   slotHeap      // hosts with work, not in flight, by the time their slot opens
	waited  time.Duration // politeness waits since the last TakeWaited
	groups  map[string]*ipGroup
	ipMax   int           // requests in flight per IP group; 0: no limit
	ipDelay time.Duration // start-to-start spacing per IP group

	doneGen  uint64  // the last batch of the state file known committed
	awaiting []*Host // hosts whose next URLs wait for a batch to commit
	backoff  Backoff
	adaptive Adaptive

	resolveFirst bool    // no claim without a looked-up address (see address.go)
	lookups      []*Host // hosts waiting for their name to be looked up
}

// NewScheduler returns an empty schedule.
func NewScheduler() *Scheduler {
	return &Scheduler{hosts: map[string]*Host{}, groups: map[string]*ipGroup{}}
}

func (s *Scheduler) slot(host string) *Host {
	h := s.hosts[host]
	if h == nil {
		h = &Host{name: host, lim: rate.NewLimiter(rate.Inf, 1), index: -1}
		s.hosts[host] = h
	}
	return h
}

// Host returns host's state, creating it (no work, no spacing) on first use.
func (s *Scheduler) Host(host string) *Host { return s.slot(host) }

// Lookup returns host's state, or nil if the crawl has not met it.
func (s *Scheduler) Lookup(host string) *Host { return s.hosts[host] }

// Hosts calls fn for every host, in no particular order.
func (s *Scheduler) Hosts(fn func(h *Host)) {
	for _, h := range s.hosts {
		fn(h)
	}
}

// Margin is added to every spacing the Scheduler keeps: the gap a server
// measures between two requests is the gap between their sends plus the
// difference of the two requests' delays on the way (the kernel may put a
// write's bytes on the wire after write() returned, the network's jitter,
// the server's own queueing), which can be some milliseconds either way.
// The margin is 2% of the delay, at least marginMin and at most 20 ms:
// the floor matters for short delays, where 2% is below a millisecond and
// loopback tests saw transmit delays of up to 7 ms on a loaded machine;
// the cap keeps long delays' cost at 2% of the politeness bound or less.
func Margin(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return min(max(d/50, marginMin), 20*time.Millisecond)
}

// marginMin is the least margin a positive delay gets.
const marginMin = 5 * time.Millisecond

func limitFor(d time.Duration) rate.Limit {
	if d <= 0 {
		return rate.Inf
	}
	return rate.Every(d + Margin(d))
}

// SetInterval sets a host's floor spacing between request starts (see
// SetIntervalWhy), for the default delay.
func (s *Scheduler) SetInterval(host string, d time.Duration, now time.Time) {
	s.SetIntervalWhy(host, d, WhyDefault, now)
}

// SetIntervalWhy sets a host's floor spacing between request starts, what
// robots.txt and the configuration ask (why says which), effective for the
// next request: it comes no sooner than its delay (the floor raised by the
// adaptive terms, see Adaptive) after the last one started, whatever the
// spacing was before (the limiter is rebuilt from the last start rather
// than carrying tokens earned at the old rate).
func (s *Scheduler) SetIntervalWhy(host string, d time.Duration, why string, now time.Time) {
	h := s.slot(host)
	h.interval, h.floorWhy = d, why
	s.respace(h, now)
}

// respace computes h's delay in force again and, if it changed, rebuilds
// its limiter from its last start.
func (s *Scheduler) respace(h *Host, now time.Time) {
	d, why := Spacing(h.interval, h.floorWhy, h.ad, s.adaptive)
	h.spacingWhy = why
	if d == h.spacing && h.lim.Limit() == limitFor(d) {
		return
	}
	h.spacing = d
	h.rebuildLimiter()
	s.update(h, now)
}

// rebuildLimiter makes h's limiter for its delay in force, its last start
// counted.
func (h *Host) rebuildLimiter() {
	h.lim = rate.NewLimiter(limitFor(h.spacing), 1)
	if !h.last.IsZero() {
		h.lim.AllowN(h.last, 1)
	}
}

// SetAdaptive sets the adaptive delay's policy; every host's delay is
// computed again.
func (s *Scheduler) SetAdaptive(p Adaptive, now time.Time) {
	s.adaptive = p
	for _, h := range s.hosts {
		s.respace(h, now)
	}
}

// Observe takes a response's time to first byte into host's smoothed one
// (the adaptive delay's latency term).
func (s *Scheduler) Observe(host string, ttfb time.Duration, now time.Time) {
	h := s.slot(host)
	h.ad.observe(ttfb)
	s.respace(h, now)
}

// Delay is host's delay in force (its floor raised by the adaptive terms)
// and why, one of the Why constants.
func (s *Scheduler) Delay(host string) (time.Duration, string) {
	h := s.hosts[host]
	if h == nil {
		return 0, WhyDefault
	}
	return h.spacing, h.spacingWhy
}

// TakeWaited returns how long hosts with work waited for their politeness
// slot (delay or hold) since the last call, and resets it: the time the
// crawl chose not to spend, for metrics.
func (s *Scheduler) TakeWaited() time.Duration {
	w := s.waited
	s.waited = 0
	return w
}

// Interval returns a host's floor spacing: what robots.txt and the
// configuration ask (see Delay for the one in force).
func (s *Scheduler) Interval(host string) time.Duration {
	if h := s.hosts[host]; h != nil {
		return h.interval
	}
	return 0
}

// Restore tells the schedule that the host's last request started at last,
// before this process started: the next one waits for the interval from
// then, so spacing holds across restarts.
func (s *Scheduler) Restore(host string, last time.Time, interval time.Duration) {
	h := s.slot(host)
	h.interval, h.last = interval, last
	h.spacing, h.spacingWhy = Spacing(h.interval, h.floorWhy, h.ad, s.adaptive)
	h.rebuildLimiter()
}

// Hold keeps a host's slot closed until t (Retry-After, backoff).
func (s *Scheduler) Hold(host string, until time.Time, now time.Time) {
	h := s.slot(host)
	if until.After(h.hold) {
		h.hold = until
		s.update(h, now)
	}
}

// SetWork says whether a host has something to fetch besides its queue
// (which the Host counts itself): robots.txt redirect hops, sitemap files.
// It also ends a Pause.
func (s *Scheduler) SetWork(host string, has bool, now time.Time) {
	h := s.slot(host)
	h.other, h.paused = has, false
	s.update(h, now)
}

// Pause takes a host out of the schedule, whatever work it has, until the
// next SetWork (its robots.txt is being fetched through another host).
func (s *Scheduler) Pause(host string, now time.Time) {
	h := s.slot(host)
	h.paused = true
	s.update(h, now)
}

// stop sets or ends the operator's pause of h (Frontier.PauseHost).
func (s *Scheduler) stop(h *Host, on bool, now time.Time) {
	h.stopped = on
	s.update(h, now)
}

// Next claims the host whose slot opens first, if it is open at now, and
// takes its limiter token: the caller must send exactly one request to it
// and then call Done. Otherwise ok is false and wait is how long until a
// slot opens, or -1 when no host has work.
func (s *Scheduler) Next(now time.Time) (host string, wait time.Duration, ok bool) {
	for {
		if len(s.ready) == 0 {
			return "", -1, false
		}
		h := s.ready[0]
		if h.openAt.After(now) {
			return "", h.openAt.Sub(now), false
		}
		if s.wantsLookup(h, now) {
			s.askLookup(h)
			continue
		}
		if !s.groupBlocks(h, now) {
			break
		}
	}
	h := s.ready[0]
	r := h.lim.ReserveN(now, 1)
	if !r.OK() || r.DelayFrom(now) > 0 {
		// The limit changed since openAt was computed: recompute.
		r.CancelAt(now)
		s.update(h, now)
		return s.Next(now)
	}
	heap.Remove(&s.ready, h.index)
	if wait := h.openAt.Sub(h.wantSince); wait > 0 {
		s.waited += min(wait, now.Sub(h.wantSince))
	}
	h.inFlight, h.res = true, r
	h.prevLast, h.last, h.claimedAt = h.last, now, now
	h.spendAddress()
	s.claimGroup(h, now)
	return h.name, 0, true
}

// Cancel gives back a claim from Next that sent no request (the URL turned
// out to be disallowed, or the host must wait): the token is returned, so
// the next request is not delayed by a request that never happened.
func (s *Scheduler) Cancel(host string, now time.Time) {
	h := s.slot(host)
	if h.res != nil && h.last.Equal(h.claimedAt) {
		// The limiter is made again from the last request before the
		// claim: the reservation's CancelAt gives nothing back once its
		// instant has passed, and a refusal comes back after it. Not
		// when a start was reported since (Started, Sent): that request
		// went out, whatever came of it, and its spacing stands.
		h.last = h.prevLast
		h.rebuildLimiter()
	}
	h.res = nil
	wasInFlight := h.inFlight
	h.inFlight = false
	if wasInFlight {
		s.releaseGroup(h, now, true)
	}
	s.update(h, now)
}

// Refused ends a claim from Next whose request the crawl's own
// configuration refused before it was sent (a private address): as
// Cancel, the host's last request stays what it was, and why is kept as
// its last error (Record), for status.
func (s *Scheduler) Refused(host, why string, now time.Time) {
	s.Cancel(host, now)
	s.slot(host).lastError = why
}

// Started tells the schedule when the claimed request actually went out
// (its headers were written), which is later than the claim by the time
// it took to connect. Spacing then counts from that moment, so the gap the
// server sees is never shorter than the interval.
func (s *Scheduler) Started(host string, t time.Time) {
	h := s.slot(host)
	if !t.After(h.last) {
		return
	}
	h.last = t
	h.rebuildLimiter()
	s.startedGroup(h, t)
}

// Done ends the host's request; its next slot is computed from the
// limiter.
func (s *Scheduler) Done(host string, now time.Time) {
	h := s.slot(host)
	wasInFlight := h.inFlight
	h.inFlight, h.res = false, nil
	if wasInFlight {
		s.releaseGroup(h, now, false)
	}
	s.update(h, now)
}

// OpenAt returns when the host's slot opens (now if open).
func (s *Scheduler) OpenAt(host string, now time.Time) time.Time {
	h := s.hosts[host]
	if h == nil {
		return now
	}
	return h.nextOpen(now)
}

// InFlight reports whether a request to host is under way.
func (s *Scheduler) InFlight(host string) bool {
	h := s.hosts[host]
	return h != nil && h.inFlight
}

// Waiting returns how many hosts have work but a closed slot at now.
func (s *Scheduler) Waiting(now time.Time) int {
	n := 0
	for _, h := range s.ready {
		if h.openAt.After(now) {
			n++
		}
	}
	return n
}

func (h *Host) nextOpen(now time.Time) time.Time {
	t := now
	if tokens := h.lim.TokensAt(now); tokens < 1 && h.lim.Limit() != rate.Inf {
		need := time.Duration((1 - tokens) / float64(h.lim.Limit()) * float64(time.Second))
		t = now.Add(need)
	}
	if h.hold.After(t) {
		t = h.hold
	}
	return t
}

// update puts the host in, out of, or back into place in the ready heap.
func (s *Scheduler) update(h *Host, now time.Time) {
	want := h.hasWork(s.doneGen) && !h.inFlight && !h.parked &&
		h.addr.state != lookupWanted && h.addr.state != lookupPending
	switch {
	case !want && h.index >= 0:
		heap.Remove(&s.ready, h.index)
	case want:
		h.openAt = h.nextOpen(now)
		if h.index >= 0 {
			heap.Fix(&s.ready, h.index)
		} else {
			if !h.keepSince {
				h.wantSince = now
			}
			heap.Push(&s.ready, h)
		}
	}
}

func (s *Scheduler) removeReady(h *Host) {
	if h.index >= 0 {
		heap.Remove(&s.ready, h.index)
	}
}

func (s *Scheduler) fixReady(h *Host) {
	if h.index >= 0 {
		heap.Fix(&s.ready, h.index)
	}
}

type slotHeap []*Host

func (q slotHeap) Len() int { return len(q) }
func (q slotHeap) Less(i, j int) bool {
	if !q[i].openAt.Equal(q[j].openAt) {
		return q[i].openAt.Before(q[j].openAt)
	}
	if !q[i].wantSince.Equal(q[j].wantSince) {
		// The host that has been ready longest goes first: hosts parked
		// behind an IP group's cap are not overtaken.
		return q[i].wantSince.Before(q[j].wantSince)
	}
	return q[i].name < q[j].name
}
func (q slotHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *slotHeap) Push(x any) {
	h := x.(*Host)
	h.index = len(*q)
	*q = append(*q, h)
}
func (q *slotHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	h.index = -1
	*q = old[:len(old)-1]
	return h
}
