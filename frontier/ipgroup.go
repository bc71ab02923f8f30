package frontier

import (
	"time"

	"golang.org/x/time/rate"
)

// Shared hosting serves many host names from one server: a crawl polite per
// host name alone can still flatten it. Hosts whose connections went to the
// same IP form a group, and the Scheduler limits each group as a whole: at
// most maxInFlight requests at once, and request starts at least delay
// apart across all its hosts. A host joins its group when its name is
// looked up (Resolved, with SetResolveFirst: before its first request) and
// again with the address each request really connected to (SetGroup);
// without a group it is limited per host only.
//
// Spacing counts from when a request was written, not from its claim: a
// request that connects first (or waits for a worker) goes out later than
// it was claimed, and spacing from the claim would let the next host of
// the group start less than delay after it. So while a claim in a spaced
// group has not been reported sent (Sent), the group's other hosts wait.

// ipGroup is the hosts whose requests connect to one IP.
type ipGroup struct {
	ip       string
	hosts    int
	inFlight int
	lim      *rate.Limiter // start-to-start spacing across the group
	last     time.Time     // start of the group's last request
	parked   []*Host       // hosts with work held back by the in-flight cap or an unsent claim
	// unsent counts claims whose requests have not been reported sent
	// (only when starts are spaced): until then the group's spacing
	// cannot count from them, so no other host of the group starts.
	unsent int
}

// SetIPLimits sets the limits each IP group gets: maxInFlight requests at
// once (0: no limit) and delay between request starts across the group (0:
// none). They apply from the next claim.
func (s *Scheduler) SetIPLimits(maxInFlight int, delay time.Duration, now time.Time) {
	s.ipMax, s.ipDelay = maxInFlight, delay
	for _, g := range s.groups {
		g.lim = s.groupLimiter(g.last)
		s.unpark(g, now)
	}
}

func (s *Scheduler) groupLimiter(last time.Time) *rate.Limiter {
	lim := rate.NewLimiter(limitFor(s.ipDelay), 1)
	if !last.IsZero() {
		lim.AllowN(last, 1)
	}
	return lim
}

// SetGroup puts host in the group of ip (the address its last connection
// went to); "" takes it out of any group. A request in flight stays counted
// against the group it was claimed in.
func (s *Scheduler) SetGroup(host, ip string, now time.Time) {
	h := s.slot(host)
	if h.group != nil && h.group.ip == ip {
		return
	}
	// A request that reached another of the name's addresses: the next
	// ones connect there first, in the group they count in.
	h.addr.prefer(ip)
	if old := h.group; old != nil {
		old.hosts--
		s.dropParked(old, h)
		if old.hosts == 0 && old.inFlight == 0 {
			delete(s.groups, old.ip)
		}
	}
	h.group = nil
	if ip != "" {
		g := s.groups[ip]
		if g == nil {
			g = &ipGroup{ip: ip, lim: s.groupLimiter(time.Time{})}
			s.groups[ip] = g
		}
		g.hosts++
		h.group = g
	}
	s.update(h, now)
}

// Group returns the IP group of host, "" if it has none yet.
func (s *Scheduler) Group(host string) string {
	if h := s.hosts[host]; h != nil && h.group != nil {
		return h.group.ip
	}
	return ""
}

// GroupInFlight returns the requests in flight to ip's group.
func (s *Scheduler) GroupInFlight(ip string) int {
	if g := s.groups[ip]; g != nil {
		return g.inFlight
	}
	return 0
}

// groupBlocks reports whether h's group keeps it from starting at now: at
// its in-flight cap (then h is parked until a request of the group ends),
// or inside the group's spacing (then h's place in the heap moves to when
// the group opens).
func (s *Scheduler) groupBlocks(h *Host, now time.Time) bool {
	g := h.group
	if g == nil {
		return false
	}
	if s.ipMax > 0 && g.inFlight >= s.ipMax || g.unsent > 0 {
		s.removeReady(h)
		h.parked = true
		g.parked = append(g.parked, h)
		return true
	}
	if open := groupOpen(g, now); open.After(now) {
		h.openAt = open
		s.fixReady(h)
		return true
	}
	return false
}

func groupOpen(g *ipGroup, now time.Time) time.Time {
	if g.lim.Limit() == rate.Inf {
		return now
	}
	if tokens := g.lim.TokensAt(now); tokens < 1 {
		return now.Add(time.Duration((1 - tokens) / float64(g.lim.Limit()) * float64(time.Second)))
	}
	return now
}

// claimGroup counts a claimed request against h's group.
func (s *Scheduler) claimGroup(h *Host, now time.Time) {
	g := h.group
	h.flightGroup = g
	if g == nil {
		return
	}
	g.inFlight++
	if g.lim.Limit() != rate.Inf {
		h.unsent = true
		g.unsent++
	}
	h.gres = g.lim.ReserveN(now, 1)
	h.prevGroupLast, g.last = g.last, now
}

// releaseGroup ends h's claim on its group; cancel also returns the
// group's spacing token (no request was sent).
func (s *Scheduler) releaseGroup(h *Host, now time.Time, cancel bool) {
	g := h.flightGroup
	h.flightGroup = nil
	if g == nil {
		return
	}
	g.inFlight--
	unsent := h.unsent
	if h.unsent {
		h.unsent = false
		g.unsent--
	}
	switch {
	case cancel && h.gres != nil && unsent && g.last.Equal(h.claimedAt):
		// As for the host (see Cancel), the limiter is made again, not
		// given back by CancelAt: no other host of the group was
		// claimed since (an unsent claim holds them back), and no
		// request reached the group since (Reached moves its last).
		g.last = h.prevGroupLast
		g.lim = s.groupLimiter(g.last)
	case cancel && h.gres != nil:
		h.gres.CancelAt(now)
		g.last = h.prevGroupLast
	}
	h.gres = nil
	if g.hosts == 0 && g.inFlight == 0 {
		delete(s.groups, g.ip)
	}
	s.unpark(g, now)
}

// Reached puts host in the group of ip, the address its last request
// connected to, and counts that request in the group's spacing: when the
// name's first address refused it, the request was claimed in that
// address's group but reached this one, whose other hosts must still wait
// ip_delay after it.
func (s *Scheduler) Reached(host, ip string, now time.Time) {
	s.SetGroup(host, ip, now)
	s.countIn(s.slot(host), now)
}

// countIn makes h's last request the start its group's spacing counts
// from, if it is later than the group's own last start (a request that
// reached the group from another's claim, or one before a restart).
func (s *Scheduler) countIn(h *Host, now time.Time) {
	if h.group != nil && !h.last.IsZero() && s.countFrom(h.group, h.last) {
		s.update(h, now)
	}
}

// countFrom makes t g's last start, if it is later than the one g has,
// and reports whether it was.
func (s *Scheduler) countFrom(g *ipGroup, t time.Time) bool {
	if !t.After(g.last) {
		return false
	}
	g.last = t
	g.lim = s.groupLimiter(t)
	return true
}

// startedGroup moves the group's last start to when the request really
// went out.
func (s *Scheduler) startedGroup(h *Host, t time.Time) {
	if g := h.flightGroup; g != nil {
		s.countFrom(g, t)
	}
}

// Sent reports that the request claimed for host went out at t: spacing
// counts from then (as from Started), and the hosts of its group that
// waited for it may start once the spacing allows.
func (s *Scheduler) Sent(host string, t, now time.Time) {
	h := s.slot(host)
	if !h.inFlight {
		return // a report that came after the request ended
	}
	s.Started(host, t)
	if g := h.flightGroup; h.unsent && g != nil {
		h.unsent = false
		g.unsent--
		s.unpark(g, now)
	}
}

// WantsSent reports whether host's claim waits to be reported sent (see
// Sent); otherwise reporting it is not needed.
func (s *Scheduler) WantsSent(host string) bool {
	h := s.hosts[host]
	return h != nil && h.unsent
}

// unpark gives the group's parked hosts their place in the heap again.
func (s *Scheduler) unpark(g *ipGroup, now time.Time) {
	parked := g.parked
	g.parked = nil
	for _, h := range parked {
		h.parked, h.keepSince = false, true
		s.update(h, now)
		h.keepSince = false
	}
}

func (s *Scheduler) dropParked(g *ipGroup, h *Host) {
	for i, p := range g.parked {
		if p == h {
			g.parked = append(g.parked[:i], g.parked[i+1:]...)
			h.parked = false
			return
		}
	}
}
