package frontier

import (
	"slices"
	"time"
)

// A host's IP group must be known before its first request, or that
// request escapes the group's limits: twenty host names of one server,
// each asked for its robots.txt at once, are twenty requests to that
// server, whatever ip_max_in_flight says. So, once the Scheduler is told
// to (SetResolveFirst), a host is not claimed before its name has been
// looked up: when its turn comes without a usable address, Next takes it
// out of the schedule and puts it on the list of lookups (Lookups); the
// caller looks the name up, off the coordinator, and tells the answer
// (Resolved), which puts the host in the group of that address and back
// in the schedule. Its request must then connect to exactly that address
// (Claim.IP): the group is the server it reaches.
//
// An answer is used until it expires (the caller says when), then looked
// up again at the host's next turn. A failed lookup is used for one claim:
// that request fails with the lookup's error, without connecting, so the
// host backs off as for any failed request, and its next turn looks the
// name up again.

// lookupState is where a host's address lookup stands.
type lookupState int8

const (
	lookupNone    lookupState = iota // no answer yet, none asked
	lookupWanted                     // on the Scheduler's lookup list
	lookupPending                    // handed out by Lookups, no answer yet
	lookupKnown                      // answered (addr)
)

// address is a host's looked-up address.
type address struct {
	state lookupState
	ip    string // the address its requests connect to, when known
	// others are the name's further addresses, tried in order when ip
	// refuses a connection; requests there count in ip's group.
	others []string
	err    error     // the lookup failed: the next claim carries it
	until  time.Time // the answer is used until then; zero: for good
	spent  bool      // a failed answer was used by a claim already
}

// usable reports whether the address may serve a claim at now.
func (a *address) usable(now time.Time) bool {
	if a.state != lookupKnown || a.spent {
		return false
	}
	return a.until.IsZero() || now.Before(a.until)
}

// SetResolveFirst makes the Scheduler claim no host whose address is not
// known and fresh (see Lookups); false (the default) claims hosts
// whatever their address.
func (s *Scheduler) SetResolveFirst(on bool) { s.resolveFirst = on }

// wantsLookup reports whether h must be looked up before a claim at now.
func (s *Scheduler) wantsLookup(h *Host, now time.Time) bool {
	return s.resolveFirst && !h.addr.usable(now)
}

// askLookup takes h out of the ready heap and puts it on the lookup list.
func (s *Scheduler) askLookup(h *Host) {
	s.removeReady(h)
	if h.addr.state == lookupWanted || h.addr.state == lookupPending {
		return
	}
	h.addr.state = lookupWanted
	s.lookups = append(s.lookups, h)
}

// Lookups hands out up to n hosts whose names must be looked up (and
// Resolved) before their next request, oldest first. Each is handed out
// once per lookup.
func (s *Scheduler) Lookups(n int) []string {
	var out []string
	for len(s.lookups) > 0 && len(out) < n {
		h := s.lookups[0]
		s.lookups[0] = nil
		s.lookups = s.lookups[1:]
		if h.addr.state != lookupWanted {
			continue
		}
		h.addr.state = lookupPending
		out = append(out, h.name)
	}
	if len(s.lookups) == 0 {
		s.lookups = nil
	}
	return out
}

// LookupsWaiting is how many hosts wait on the lookup list.
func (s *Scheduler) LookupsWaiting() int { return len(s.lookups) }

// Resolved gives host's lookup answer: the address ip its requests are to
// connect to until until (zero: for good), with the name's other
// addresses to try when ip refuses a connection, or the lookup's error.
// The host joins ip's group and is back in the schedule.
//
// A host whose requests reached one of the name's other addresses (the
// first refused: see fetch.Address) is in that address's group, and stays
// there while the new answer still lists it: it comes first, so the host
// does not go back and forth between two groups at every lookup.
func (s *Scheduler) Resolved(host, ip string, others []string, err error, until, now time.Time) {
	h := s.slot(host)
	h.addr = address{state: lookupKnown, ip: ip, others: others, err: err, until: until}
	if h.group != nil {
		h.addr.prefer(h.group.ip)
	}
	if err == nil && h.addr.ip != "" {
		s.SetGroup(host, h.addr.ip, now)
	}
	s.update(h, now)
}

// prefer puts ip first among a's addresses, if a lists it.
func (a *address) prefer(ip string) {
	i := slices.Index(a.others, ip)
	if ip == a.ip || i < 0 {
		return
	}
	others := make([]string, 0, len(a.others))
	others = append(others, a.ip)
	others = append(others, a.others[:i]...)
	a.ip, a.others = ip, append(others, a.others[i+1:]...)
}

// Address is host's looked-up address, the name's other addresses and
// the lookup's error, as its next claim would use them.
func (s *Scheduler) Address(host string) (ip string, others []string, err error) {
	if h := s.hosts[host]; h != nil && h.addr.state == lookupKnown {
		return h.addr.ip, h.addr.others, h.addr.err
	}
	return "", nil, nil
}

// spendAddress marks a failed answer used by the claim just made.
func (h *Host) spendAddress() {
	if h.addr.err != nil {
		h.addr.spent = true
	}
}
