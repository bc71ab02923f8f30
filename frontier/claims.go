package frontier

import (
	"time"

	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// A claim is a host's slot taken for one request. It opens with Claim and
// ends once, with Cancel (nothing was sent) or Release (the request is
// over: its start counts for the host's and IP group's spacing). A claim's
// id tells its reports from those of an earlier claim of the same host:
// a late report about an ended claim changes nothing, so callers keep no
// flag of their own saying whether a slot was released already.

// Claim is an open claim of a host's slot.
type Claim struct {
	Host string
	ID   uint64
	// NotifySent: the host's IP group waits to learn when the request
	// goes out (see Sent); report it as soon as it is written.
	NotifySent bool
	// IP is the address the request must connect to (its IP group's),
	// and LookupErr why there is none: the host's name could not be
	// looked up, and the request fails with it, unsent. Both empty when
	// the Frontier does not look hosts up first (Options.ResolveFirst).
	IP        string
	LookupErr error
	// OtherIPs are the host name's further addresses, to connect to in
	// order when IP refuses (see Scheduler.Resolved).
	OtherIPs []string
}

// Claim takes the slot of the host whose slot opens first, if it is open
// at now (see Scheduler.Next). Otherwise ok is false and wait is how long
// until one opens, or -1 when no host has work.
func (f *Frontier[H]) Claim(now time.Time) (c Claim, wait time.Duration, ok bool) {
	host, wait, ok := f.sched.Next(now)
	if !ok {
		return Claim{}, wait, false
	}
	f.lastID++
	f.claims[host] = &claim{id: f.lastID}
	ip, others, err := f.sched.Address(host)
	return Claim{Host: host, ID: f.lastID, NotifySent: f.sched.WantsSent(host), IP: ip, OtherIPs: others, LookupErr: err}, 0, true
}

// Lookups hands out up to n hosts whose names must be looked up, and the
// answer given to Resolved, before their next request (see
// Scheduler.Lookups).
func (f *Frontier[H]) Lookups(n int) []string { return f.sched.Lookups(n) }

// Resolved gives the answer of host's lookup: the address its requests
// connect to until until (zero: for good), the others to try when it
// refuses, or why there is none.
func (f *Frontier[H]) Resolved(host, ip string, others []string, err error, until, now time.Time) {
	f.sched.Resolved(host, ip, others, err, until, now)
}

// Observe takes the time to first byte of claim id's response into its
// host's adaptive delay. A report for an ended claim is ignored.
func (f *Frontier[H]) Observe(host string, id uint64, ttfb time.Duration, now time.Time) {
	if f.open(host, id) {
		f.sched.Observe(host, ttfb, now)
	}
}

// TakeWaited returns how long hosts with work waited for their slot since
// the last call (see Scheduler.TakeWaited).
func (f *Frontier[H]) TakeWaited() time.Duration { return f.sched.TakeWaited() }

// open reports whether c is host's open claim.
func (f *Frontier[H]) open(host string, id uint64) bool {
	cl := f.claims[host]
	return cl != nil && cl.id == id
}

// Cancel gives back host's claim, which sent no request: its token is
// returned, and the host's work is looked at again.
func (f *Frontier[H]) Cancel(host string, now time.Time) {
	delete(f.claims, host)
	f.sched.Cancel(host, now)
	f.setWork(host, now)
}

// Take hands out the head of host's queue (seq) for the claim: it stays
// counted in the queue until its outcome is recorded (Finish, Retry).
func (f *Frontier[H]) Take(host string, seq uint64) { f.sched.Take(host, seq) }

// Sent reports that claim id's request went out at t (its IP group's
// other hosts may have waited for that). A report for an ended claim is
// ignored.
func (f *Frontier[H]) Sent(host string, id uint64, t, now time.Time) {
	if f.open(host, id) {
		f.sched.Sent(host, t, now)
	}
}

// Back says that claim id's worker is back with its result (sent when the
// request was written, zero if never). The claim stays open until Release.
func (f *Frontier[H]) Back(host string, id uint64, sent, now time.Time) {
	cl := f.claims[host]
	if cl == nil || cl.id != id {
		return
	}
	cl.returned = true
	if !sent.IsZero() && f.sched.WantsSent(host) {
		// The result came before its sent note (or the note never
		// came): the IP group need not wait for the result's record.
		f.sched.Sent(host, sent, now)
	}
}

// Release ends claim id: the request started at sent (zero: unknown, the
// claim's time stands) on a connection to ip ("" unknown), and host's
// slot opens for the next request. It reports false, changing nothing, if
// the claim had ended already.
func (f *Frontier[H]) Release(host string, id uint64, sent time.Time, ip string, now time.Time) bool {
	if !f.open(host, id) {
		return false
	}
	delete(f.claims, host)
	if !sent.IsZero() {
		f.sched.Started(host, sent)
	}
	f.sched.Done(host, now)
	if ip != "" {
		f.sched.Reached(host, ip, now)
	}
	f.setWork(host, now)
	return true
}

// Refuse ends claim id, whose request the crawl's own configuration
// refused before it was sent (a private address): as Cancel, the host's
// last request stays what it was, and why is kept as its last error (for
// status). It reports false, changing nothing, if the claim had ended.
func (f *Frontier[H]) Refuse(host string, id uint64, why string, now time.Time) bool {
	if !f.open(host, id) {
		return false
	}
	delete(f.claims, host)
	f.sched.Refused(host, why, now)
	f.setWork(host, now)
	return true
}

// Returned ends a taken URL's time out: its outcome is recorded (or it
// stays queued, untouched).
func (f *Frontier[H]) Returned(host string, now time.Time) {
	f.sched.Returned(host, now)
	f.setWork(host, now)
}

// Started says host's last request started at t, later than its claim
// (a link-heavy page's request, or one given up on at a stop): spacing
// counts from there.
func (f *Frontier[H]) Started(host string, t time.Time) {
	if !t.IsZero() {
		f.sched.Started(host, t)
	}
}

// Busy calls fn for every host whose worker has not come back.
func (f *Frontier[H]) Busy(fn func(host string)) {
	for host, cl := range f.claims {
		if !cl.returned {
			fn(host)
		}
	}
}

// Abandon is a stop that gives up on busy workers: each host whose worker
// has not come back counts a request at now (it may have reached the
// server), written in tx, so the restart keeps the spacing.
func (f *Frontier[H]) Abandon(tx *storage.Tx, now time.Time) error {
	for host, cl := range f.claims {
		if cl.returned {
			continue
		}
		f.sched.Started(host, now)
		if err := f.Save(tx, host); err != nil {
			return err
		}
	}
	return nil
}

// Idle says that host's claim found nothing to send although its queue
// counts URLs: they are in batch committing (0: none is being committed),
// not readable before it lands. The claim is given back and the host
// waits for that batch.
func (f *Frontier[H]) Idle(host string, committing uint64, now time.Time) {
	delete(f.claims, host)
	f.sched.Cancel(host, now)
	h := f.sched.Host(host)
	switch {
	case committing != 0 && h.HasQueued():
		f.sched.WaitFor(host, committing, now)
	case h.HasQueued():
		// Every queue write goes through the Frontier in the
		// transaction that makes it, so this is a bug: say so, and
		// keep the host from being offered for work it does not have.
		f.log.Error("frontier: a host's queue is shorter than counted (a bug)", "host", host,
			"counted", h.Queued()-h.Taken())
		f.sched.Recount(host, now)
	}
	f.setWork(host, now)
}

// Committed says every batch up to gen is in the state file: hosts
// waiting for them get their turn.
func (f *Frontier[H]) Committed(gen uint64, now time.Time) { f.sched.Committed(gen, now) }

// Hold keeps host's slot closed until t (Retry-After, an unreachable
// robots.txt, a shard's previous owner's last request).
func (f *Frontier[H]) Hold(host string, until, now time.Time) {
	f.meet(host, now)
	f.sched.Hold(host, until, now)
}

// Pause takes host out of the schedule until its work changes (its
// robots.txt is being fetched through another host's redirect).
func (f *Frontier[H]) Pause(host string, now time.Time) {
	delete(f.claims, host)
	f.sched.Cancel(host, now)
	f.sched.Pause(host, now)
}

// Wake puts a paused host back in the schedule.
func (f *Frontier[H]) Wake(host string, now time.Time) {
	f.meet(host, now)
	f.setWork(host, now)
}

// Fail records a failed request to host and backs it off (see
// Scheduler.Fail); it returns until when.
func (f *Frontier[H]) Fail(host, why string, retryAfter time.Duration, now time.Time) time.Time {
	return f.sched.Fail(host, why, retryAfter, now)
}

// Recovered ends host's run of failures (see Scheduler.Recovered).
func (f *Frontier[H]) Recovered(host string, now time.Time) { f.sched.Recovered(host, now) }

// ApplyRobots sets host's spacing from its robots.txt for agent.
func (f *Frontier[H]) ApplyRobots(host string, r *robots.Robots, agent string, now time.Time) {
	cd, ri := robotsDelays(r, agent)
	f.meet(host, now)
	d, why := f.hostInterval(host, cd, ri)
	f.sched.SetIntervalWhy(host, d, why, now)
}

// SetDelays changes the delay policy (a configuration reload): each
// host's spacing is computed again from rules(host), the robots.txt it
// has (nil: none).
func (f *Frontier[H]) SetDelays(d DelayPolicy, rules func(host string) *robots.Robots, agent string, now time.Time) {
	f.delays = d
	f.sched.SetAdaptive(d.Adaptive(), now)
	for host := range f.work {
		if r := rules(host); r != nil {
			f.ApplyRobots(host, r, agent, now)
		} else {
			iv, why := f.hostInterval(host, 0, 0)
			f.sched.SetIntervalWhy(host, iv, why, now)
		}
	}
}

// Fence takes host out of the schedule until Unfence lets it back (a
// cluster node whose shard of it is another node's now).
func (f *Frontier[H]) Fence(host string, now time.Time) {
	f.Pause(host, now)
	f.fenced[host] = true
}

// Unfence lets every fenced host that serves selects back in the
// schedule, each held hold(host) from now, and at least its interval.
func (f *Frontier[H]) Unfence(serves func(host string) bool, hold func(host string) time.Duration, now time.Time) {
	for host := range f.fenced {
		if serves(host) {
			delete(f.fenced, host)
			f.sched.Hold(host, now.Add(max(hold(host), f.sched.Interval(host))), now)
			f.setWork(host, now)
		}
	}
}

// AddHop queues a robots.txt redirect hop on host's slot.
func (f *Frontier[H]) AddHop(host string, hop H, now time.Time) {
	w := f.meet(host, now)
	w.hops = append(w.hops, hop)
	f.setWork(host, now)
}

// NextHop takes the first hop waiting for host's slot.
func (f *Frontier[H]) NextHop(host string) (hop H, ok bool) {
	w := f.work[host]
	if w == nil || len(w.hops) == 0 {
		return hop, false
	}
	hop = w.hops[0]
	w.hops = w.hops[1:]
	return hop, true
}

// Reread makes a sitemap read before due again on host (a recrawl).
func (f *Frontier[H]) Reread(host, url string, now time.Time) {
	w := f.meet(host, now)
	w.sitemaps = append(w.sitemaps, url)
	f.setWork(host, now)
}

// NextSitemap is host's next sitemap file to read.
func (f *Frontier[H]) NextSitemap(host string) (string, bool) {
	w := f.work[host]
	if w == nil || len(w.sitemaps) == 0 {
		return "", false
	}
	return w.sitemaps[0], true
}

// DoneSitemap takes url off host's sitemap files, if it is the next one.
func (f *Frontier[H]) DoneSitemap(host, url string, now time.Time) {
	if w := f.work[host]; w != nil && len(w.sitemaps) > 0 && w.sitemaps[0] == url {
		w.sitemaps = w.sitemaps[1:]
		f.setWork(host, now)
	}
}

// LookupsWaiting is how many hosts wait for Lookups to hand them out.
func (f *Frontier[H]) LookupsWaiting() int { return f.sched.LookupsWaiting() }
