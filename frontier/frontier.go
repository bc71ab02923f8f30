package frontier

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// Frontier owns every host of a crawl for its whole life: admission, the
// queues in the state file and their counts, the work a host has besides
// its queue (robots.txt redirect hops of type H, sitemap files), the
// request slots (per host and per IP group), claims, backoff, holds and
// pauses. Each verb that changes a queue takes the batch's transaction,
// writes the state file and updates the host in the same call, so a host's
// count is its queue by construction: no caller pairs a write with a count
// update, and nothing is recounted after the fact.
//
// The crawl's coordinator is its only caller: not safe for concurrent use.
// Time is passed in, never read, except by the Admitter's date guards.
type Frontier[H any] struct {
	sched    *Scheduler
	admit    *Admitter
	robots   Verdicts
	divert   func(Candidate)
	delays   DelayPolicy
	hosts    *Overrides
	sitemaps SitemapPolicy
	log      *slog.Logger

	work   map[string]*extraWork[H]
	claims map[string]*claim // hosts with a claim open: a request in flight, or its result not settled yet
	lastID uint64
	fenced map[string]bool // hosts out of the schedule until Unfence (a cluster node's other shards)

	refusals []Admission // robots.txt refusals Discover saw, until Refusals

	// The recheck schedule (see recheck.go).
	recrawl time.Duration // 0: pages are not rechecked
	policy  freshness.Policy
	// freshHosts is each host's part of the schedule (see fresh.go).
	freshHosts map[string]*freshness.Host
	// sweepRates is the histograms a sweep is counting, put in place
	// of freshHosts' when it ends (see SweepSome).
	sweepRates map[string]*freshness.Host
	nextDue    time.Time     // the earliest recheck or re-read due; zero if none
	sweep      *recrawlSweep // the schedule being redone; nil if none
}

// Verdicts is what admission asks about a URL's origin's robots.txt, when
// it is known (its rules, and the content-use signals it and the site's
// tdmrep.json give against the crawl's declared purpose): a URL it refuses
// is recorded as its Verdict says instead of being queued. A pure query:
// it must not change anything.
type Verdicts interface {
	Verdict(url string) Verdict
}

// Verdict is a refusal of a URL by its site, as its record keeps it: the
// state and the reason, and, when content-use signals refused it, what
// they said of each use (the record's ContentUse, as a fetched page's
// signals are kept; nil leaves the record's as it is). The zero Verdict
// refuses nothing.
type Verdict struct {
	State      storage.State
	Reason     string
	ContentUse map[string]storage.ContentUse
}

// DelayPolicy turns what robots.txt says into a host's spacing (see
// Delay): Default when it says nothing, never more than Max; and raises it
// by what the server shows of itself (see Adaptive; its Max is this Max).
type DelayPolicy struct {
	Default, Max  time.Duration
	LatencyFactor float64 // Adaptive.LatencyFactor; 0: off
	ErrorBackoff  bool    // Adaptive.ErrorBackoff
}

// Adaptive is the policy's adaptive delay.
func (p DelayPolicy) Adaptive() Adaptive {
	return Adaptive{LatencyFactor: p.LatencyFactor, ErrorBackoff: p.ErrorBackoff, Max: p.Max}
}

// Options configure a Frontier.
type Options struct {
	Scope         *scope.Scope // nil admits nothing
	Hosts         *Overrides   // the hosts: section; nil: none
	Limits        Limits
	Delays        DelayPolicy
	IPMaxInFlight int
	IPDelay       time.Duration
	Backoff       Backoff
	// ResolveFirst: no host is claimed before its name is looked up
	// (Lookups, Resolved), so its IP group's limits hold from its first
	// request.
	ResolveFirst bool
	Recrawl      time.Duration // how long after a fetch a page is checked again; 0: never
	// Freshness is the recheck policy when Recrawl is set: Adaptive
	// (with Min, Max and Share) or fixed at Recrawl. Its Interval is
	// Recrawl.
	Freshness freshness.Policy
	Robots    Verdicts // nil: nothing is refused for robots.txt at admission
	Sitemaps  SitemapPolicy
	// Divert, if set, takes every URL in scope that the crawl discovers
	// instead of admitting it here (a cluster node: the URL goes to the
	// node that owns its host, which admits it with Admit).
	Divert func(Candidate)
	Now    func() time.Time // today, for the Admitter's date guards
	Log    *slog.Logger
}

// extraWork is what a host has to fetch besides its queue.
type extraWork[H any] struct {
	hops     []H      // robots.txt redirect hops waiting for this host's slot
	sitemaps []string // sitemap files on this host still to read, in order
	nSitemap int      // sitemap files ever accepted for this host (the cap)
}

// claim is one open claim of a host's slot.
type claim struct {
	id       uint64
	returned bool // the worker is back; its result is not settled yet
}

// New returns a Frontier with no hosts; Restore loads a state file's.
func New[H any](o Options) *Frontier[H] {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &Frontier[H]{
		sched:    NewScheduler(),
		admit:    NewAdmitter(o.Scope, o.Limits, 0, o.Now),
		hosts:    o.Hosts,
		robots:   o.Robots,
		divert:   o.Divert,
		delays:   o.Delays,
		sitemaps: o.Sitemaps,
		log:      log,
		work:     map[string]*extraWork[H]{},
		claims:   map[string]*claim{},
		fenced:   map[string]bool{},

		recrawl:    o.Recrawl,
		policy:     o.Freshness,
		freshHosts: map[string]*freshness.Host{},
	}
	f.policy.Interval = o.Recrawl
	f.admit.hosts = o.Hosts
	f.sched.SetBackoff(o.Backoff)
	f.sched.SetAdaptive(o.Delays.Adaptive(), time.Time{})
	f.sched.SetResolveFirst(o.ResolveFirst)
	f.sched.SetIPLimits(o.IPMaxInFlight, o.IPDelay, time.Time{})
	return f
}

// Restore loads from tx every host the state file knows: its record
// (last request, interval, hold, failures, IP), its queue's length and
// its sitemap files still to read. After a crash (crashed) every host's
// last request is taken to be at now: one may have left just before.
func (f *Frontier[H]) Restore(tx *storage.Tx, crashed bool, now time.Time) error {
	if t, ok := tx.NextDue(); ok {
		f.nextDue = t
	}
	counts := tx.Counts()
	f.admit.admitted = counts[storage.Queued] + counts[storage.Fetched] + counts[storage.Disallowed] + counts[storage.Failed]
	records := map[string]storage.HostRecord{}
	if err := tx.ForEachHost(func(h string, r storage.HostRecord) error {
		f.meet(h, now)
		records[h] = r
		f.restoreFresh(h, r)
		return nil
	}); err != nil {
		return fmt.Errorf("restore hosts: %w", err)
	}
	if err := tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
		w := f.meet(r.Host, now)
		if r.State != SitemapSkipped {
			w.nSitemap++
		}
		if r.State == SitemapPending {
			// Not read before the stop: read again; the seen set keeps
			// its URLs from being queued twice.
			w.sitemaps = append(w.sitemaps, r.URL)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("restore sitemaps: %w", err)
	}
	queued := map[string]int{}
	if err := tx.QueuedHosts(func(h string, n int) error {
		f.meet(h, now)
		queued[h] = n
		return nil
	}); err != nil {
		return fmt.Errorf("restore queues: %w", err)
	}
	for name := range f.work {
		f.sched.RestoreHost(name, records[name], queued[name], crashed, now)
		f.setWork(name, now)
	}
	return nil
}

// meet returns a host's extra work, meeting the host (spaced by the
// default delay) the first time.
func (f *Frontier[H]) meet(name string, now time.Time) *extraWork[H] {
	w := f.work[name]
	if w == nil {
		w = &extraWork[H]{}
		f.work[name] = w
		d, why := f.hostInterval(name, 0, 0)
		f.sched.SetIntervalWhy(name, d, why, now)
	}
	return w
}

func (p DelayPolicy) interval(crawlDelay, rateInterval time.Duration) (time.Duration, string) {
	return DelayWhy(p.Default, p.Max, crawlDelay, rateInterval)
}

// hostInterval is host's spacing: the delay formula with the host's
// override's min_delay, if any, in place of the default (robots.txt's
// Crawl-delay and Request-rate still win over a faster one).
func (f *Frontier[H]) hostInterval(host string, crawlDelay, rateInterval time.Duration) (time.Duration, string) {
	p := f.delays
	o, ok := f.hosts.For(host)
	if ok && o.MinDelay > 0 {
		p.Default = o.MinDelay
		if p.Max > 0 {
			p.Max = max(p.Max, o.MinDelay)
		}
	}
	d, why := p.interval(crawlDelay, rateInterval)
	if ok && o.MinDelay > 0 && why == WhyDefault {
		why = WhyOverride
	}
	return d, why
}

// Meet makes host known to the crawl (spaced by the default delay) if it
// is not yet.
func (f *Frontier[H]) Meet(host string, now time.Time) { f.meet(host, now) }

// setWork tells the schedule whether host has work besides its queue.
func (f *Frontier[H]) setWork(name string, now time.Time) {
	w := f.work[name]
	f.sched.SetWork(name, w != nil && (len(w.hops) > 0 || len(w.sitemaps) > 0), now)
}

// Discover admits a URL the crawl found (a link, a redirect, a sitemap's
// entry, a seed), or diverts it when a Divert is set (see Options).
func (f *Frontier[H]) Discover(tx *storage.Tx, c Candidate, now time.Time) (Admission, error) {
	if f.divert != nil && f.InScope(c.URL) {
		f.divert(c)
		return Admission{URL: c.URL, Diverted: true}, nil
	}
	a, err := f.Admit(tx, c, now)
	if err == nil && a.Refused {
		f.refusals = append(f.refusals, a)
	}
	return a, err
}

// Refusals returns the URLs that Discover saw refused by their origin's
// robots.txt since the last call, and forgets them: the crawl reports
// each as an outcome.
func (f *Frontier[H]) Refusals() []Admission {
	r := f.refusals
	f.refusals = nil
	return r
}

// Admission is what Admit made of a candidate.
type Admission struct {
	URL string
	// Diverted: handed to Divert, nothing recorded here.
	Diverted bool
	Queued   bool
	// Refused: robots.txt (Verdicts) refused it; it is recorded in State
	// with Reason.
	Refused bool
	State   storage.State
	Reason  string
}

// Admit decides a discovered URL: out of scope or seen (nothing written),
// refused by a limit or a trap guard (recorded skipped), refused by its
// origin's robots.txt (recorded so), or queued at the tail of its host's
// queue and counted.
func (f *Frontier[H]) Admit(tx *storage.Tx, c Candidate, now time.Time) (Admission, error) {
	a := Admission{URL: c.URL}
	var refuse func(string) Verdict
	if f.robots != nil {
		refuse = func(url string) Verdict {
			v := f.robots.Verdict(url)
			if v.State != "" {
				a.Refused, a.State, a.Reason = true, v.State, v.Reason
			}
			return v
		}
	}
	queued, err := f.admit.admit(tx, c, refuse)
	if err != nil || !queued {
		return a, err
	}
	a.Queued = true
	f.queued(tx, urlnorm.Authority(c.URL), c.URL, now)
	return a, nil
}

// queued counts the URL just enqueued in tx.
func (f *Frontier[H]) queued(tx *storage.Tx, host, url string, now time.Time) {
	f.meet(host, now)
	f.sched.Enqueued(host, url, tx.LastSeq(), now)
}

// InScope reports whether url is in the crawl's scope.
func (f *Frontier[H]) InScope(url string) bool { return f.admit.InScope(url) }

// SetScope replaces the crawl's scope (a configuration reload). URLs
// queued before are decided again when they come up (see OutOfScope).
func (f *Frontier[H]) SetScope(s *scope.Scope) { f.admit.SetScope(s) }

// Decide is the scope's decision on a normal URL, naming the rule.
func (f *Frontier[H]) Decide(url string) scope.Decision { return f.admit.Decide(url) }

// OutOfScope reports whether a queued URL coming up for a request lies
// outside the scope now (a reload changed the rules), and the reason to
// record it skipped with. A crawl with no scope rule at all (no seeds,
// hosts or include rules: a resume from the state file alone) fetches
// what it had queued.
func (f *Frontier[H]) OutOfScope(url string) (reason string, out bool) {
	if f.admit.scope.Empty() {
		return "", false
	}
	if d := f.admit.Decide(url); !d.In {
		return d.Reason(), true
	}
	return "", false
}

// Requeue puts a decided URL (its record written by the caller) back at
// the tail of its host's queue: a recheck, or a URL a cluster node takes
// back.
func (f *Frontier[H]) Requeue(tx *storage.Tx, url string, now time.Time) error {
	host := urlnorm.Authority(url)
	if err := tx.Enqueue(host, url); err != nil {
		return err
	}
	f.queued(tx, host, url, now)
	return nil
}

// Retry moves a taken URL from its place (seq) to the tail of its host's
// queue: it is tried again later.
func (f *Frontier[H]) Retry(tx *storage.Tx, host string, seq uint64, url string) error {
	if err := tx.Dequeue(host, seq); err != nil {
		return err
	}
	if err := tx.Enqueue(host, url); err != nil {
		return err
	}
	f.sched.Requeued(host, url, tx.LastSeq())
	return nil
}

// Finish takes a URL whose outcome is recorded off its host's queue.
func (f *Frontier[H]) Finish(tx *storage.Tx, host string, seq uint64) error {
	if err := tx.Dequeue(host, seq); err != nil {
		return err
	}
	f.sched.Removed(host, 1)
	return nil
}

// Settle takes the head of host's queue (seq), decided without a
// request, off the queue and moves the cursor past it.
func (f *Frontier[H]) Settle(tx *storage.Tx, host string, seq uint64, now time.Time) error {
	if err := f.Finish(tx, host, seq); err != nil {
		return err
	}
	f.sched.Settled(host, seq, now)
	return nil
}

// Drop takes the listed entries off host's queue out of order (its
// origin gave up). Until batch gen commits (0: it is committed with the
// next write), the committed queue still holds them: the host's next URLs
// are read again once it has.
func (f *Frontier[H]) Drop(tx *storage.Tx, host string, seqs []uint64, gen uint64, now time.Time) error {
	for _, seq := range seqs {
		if err := tx.Dequeue(host, seq); err != nil {
			return err
		}
	}
	if len(seqs) > 0 {
		f.sched.Dropped(host, len(seqs), gen, now)
	}
	return nil
}

// Save writes host's record (what must survive a restart) in tx.
func (f *Frontier[H]) Save(tx *storage.Tx, host string) error {
	r := f.sched.Record(host)
	f.saveFresh(host, &r, f.admit.now())
	return tx.PutHost(host, r)
}

// Lookup returns host's state, or nil if the crawl has not met it. The
// Host is the Frontier's: callers read it, never keep it.
func (f *Frontier[H]) Lookup(host string) *Host { return f.sched.Lookup(host) }

// Hosts calls fn for every host the crawl has met, in no order.
func (f *Frontier[H]) Hosts(fn func(host string)) {
	for name := range f.work {
		fn(name)
	}
}

// HasWork reports whether host has anything to fetch: queued URLs not
// handed out, robots.txt hops, sitemap files.
func (f *Frontier[H]) HasWork(host string) bool {
	if h := f.sched.Lookup(host); h != nil && h.HasQueued() {
		return true
	}
	w := f.work[host]
	return w != nil && (len(w.hops) > 0 || len(w.sitemaps) > 0)
}

// HostView is what status shows of one host's slot and schedule.
type HostView struct {
	InFlight    bool
	NextRequest time.Time     // when its slot opens, if it has work and nothing in flight
	Interval    time.Duration // the delay in force between its request starts
	// DelayReason says why its next request waits what it waits: the
	// reason of Interval (default_delay, robots.txt Crawl-delay or
	// Request-rate, max_delay, latency, error backoff), or Retry-After or
	// backoff while a hold keeps it closed longer.
	DelayReason string
	// DelayFrom is what set Interval alone (a Why constant: default_delay,
	// robots.txt Crawl-delay or Request-rate, max_delay, hosts: min_delay,
	// latency, error backoff), whatever holds the host besides.
	DelayFrom  string
	IP         string // its IP group, "" if not known
	Queued     int    // URLs in its queue, as recorded (committed or not)
	HasWork    bool   // something to fetch: queued URLs not handed out, hops, sitemaps
	Paused     bool   // out of the schedule (its robots.txt comes through another host)
	Stopped    bool   // paused by the operator (PauseHost)
	Fenced     bool   // out of the schedule: another cluster node's shard
	HoldUntil  time.Time
	HoldWhy    string // HoldBackoff or HoldRetryAfter while it backs off; "" otherwise
	Failures   int    // consecutive failed requests
	LastError  string // why it last backed off
	LastStatus int    // HTTP status of its last answer to a page request; 0: none yet
}

// View returns host's slot as status shows it.
func (f *Frontier[H]) View(host string, now time.Time) HostView {
	d, _ := f.sched.Delay(host)
	v := HostView{InFlight: f.sched.InFlight(host), Interval: d, DelayReason: f.sched.DelayReason(host, now), IP: f.sched.Group(host)}
	if !v.InFlight && f.HasWork(host) {
		v.NextRequest = f.sched.OpenAt(host, now)
	}
	f.viewDetail(&v, host)
	return v
}

// Interval is host's current spacing between request starts.
func (f *Frontier[H]) Interval(host string) time.Duration { return f.sched.Interval(host) }

// Record is the part of host's state that survives a restart.
func (f *Frontier[H]) Record(host string) storage.HostRecord { return f.sched.Record(host) }

// Learn takes what a cluster shard's previous owner learnt of host's
// server, from the record it wrote (see Scheduler.Learn): its delay's
// adaptive terms and its last answer's status.
func (f *Frontier[H]) Learn(host string, r storage.HostRecord, now time.Time) {
	f.meet(host, now)
	f.sched.Learn(host, r, now)
}

// QueuedTotal is the number of queued URLs over all hosts.
func (f *Frontier[H]) QueuedTotal() int { return f.sched.QueuedTotal() }

// Head returns the next URL of host's queue after those handed out, if it
// is in memory.
func (f *Frontier[H]) Head(host string) (QueueEntry, bool) {
	if h := f.sched.Lookup(host); h != nil {
		return h.Head()
	}
	return QueueEntry{}, false
}

// Unreadable reports whether host's next URLs wait for a batch to commit.
func (f *Frontier[H]) Unreadable(host string) bool { return f.sched.Unreadable(host) }

// LoadAhead reads the start of host's queue after its cursor from tx when
// none is in memory, and returns the head.
func (f *Frontier[H]) LoadAhead(tx *storage.Tx, host string) (QueueEntry, bool) {
	return f.sched.LoadAhead(tx, host)
}

// HeadAfterCursor reads from tx the first entry of host's queue after its
// cursor (past the URLs handed out or settled).
func (f *Frontier[H]) HeadAfterCursor(tx *storage.Tx, host string) (QueueEntry, bool) {
	return HeadAfter(tx, host, f.sched.Host(host).Cursor())
}
