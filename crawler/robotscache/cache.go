package robotscache

import (
	"errors"
	"strconv"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// GoodCopyMaxAge is how long a last good robots.txt may stand in for one
// that has become unreachable (RFC 9309 section 2.3.1.4's example, and
// Google's practice).
const GoodCopyMaxAge = 30 * 24 * time.Hour

// Policy is how the Cache treats outcomes over time.
type Policy struct {
	TTL       time.Duration // how long a fetched file decides; a shorter max-age wins
	Retries   int           // retries of an unreachable file before its URLs fail
	RetryBase time.Duration // the first retry's wait, doubling after each
	MaxHold   time.Duration // cap on a server's Retry-After
}

// Origin is one origin's robots.txt as the crawl knows it: the rules in
// force, how they came, and when to ask again.
type Origin struct {
	rules     *robots.Robots // nil until an outcome is known
	outcome   Outcome
	fetchedAt time.Time
	expires   time.Time // fetch again after this
	attempts  int       // consecutive unreachable fetches
	retryAt   time.Time // next try while unreachable
	gaveUp    bool      // retries exhausted: its URLs fail
	fetching  bool      // a robots.txt request (or redirect hop) is under way
	reason    string
	goodBody  []byte
	goodAt    time.Time
}

// Rules are the rules in force (nil before the first outcome).
func (o *Origin) Rules() *robots.Robots { return o.rules }

// Outcome is the last outcome applied (Parsed also when an unreachable
// file is stood in for by its last good copy).
func (o *Origin) Outcome() Outcome { return o.outcome }

// Reason says in words what the last fetch gave.
func (o *Origin) Reason() string { return o.reason }

// GoodAt is when the last good copy was fetched (zero if none).
func (o *Origin) GoodAt() time.Time { return o.goodAt }

// GoodCopy is the origin's last good robots.txt while it is under
// GoodCopyMaxAge old at now (what stands in for a file that has become
// unreachable), or nil. A restored origin whose file was unreachable has
// no rules until it is fetched again, but its good copy still says how
// slowly its host must be asked.
func (o *Origin) GoodCopy(now time.Time) *robots.Robots {
	if o.goodBody == nil || now.Sub(o.goodAt) >= GoodCopyMaxAge {
		return nil
	}
	return robots.Parse(o.goodBody)
}

// Attempts counts consecutive unreachable fetches.
func (o *Origin) Attempts() int { return o.attempts }

// RetryAt is when an unreachable file is asked for again.
func (o *Origin) RetryAt() time.Time { return o.retryAt }

// GaveUp reports whether the retries ran out: the origin's URLs fail.
func (o *Origin) GaveUp() bool { return o.gaveUp }

// Fetching reports whether a request for the file is under way.
func (o *Origin) Fetching() bool { return o.fetching }

// Retrying reports whether the file is unreachable and waits for a retry
// after now.
func (o *Origin) Retrying(now time.Time) bool {
	return o.outcome == Unreachable && !o.gaveUp && o.retryAt.After(now)
}

// Usable reports whether o's rules may decide URLs at now.
func (o *Origin) Usable(now time.Time) bool {
	return o != nil && o.rules != nil && now.Before(o.expires)
}

// Cache owns the robots.txt lifecycle of every origin of a crawl: whether
// a URL can be decided now or its origin's file must be fetched first
// (once per origin, however many hosts wait on it), how an outcome turns
// into rules and an expiry, retries of an unreachable file with the last
// good copy standing in, giving up, and the record that persists it all.
// It makes no requests and schedules nothing: the crawl asks it (Next) and
// tells it what came back (Apply, Unreachable, Cut). Not safe for
// concurrent use: one goroutine (the crawl's coordinator) owns it.
type Cache struct {
	p       Policy
	origins map[string]*Origin
}

// NewCache returns an empty cache that follows p.
func NewCache(p Policy) *Cache {
	return &Cache{p: p, origins: map[string]*Origin{}}
}

// Lookup returns origin's state, nil if it was never asked for.
func (c *Cache) Lookup(origin string) *Origin { return c.origins[origin] }

// Each calls fn for every origin known.
func (c *Cache) Each(fn func(origin string, o *Origin)) {
	for k, o := range c.origins {
		fn(k, o)
	}
}

func (c *Cache) origin(origin string) *Origin {
	o := c.origins[origin]
	if o == nil {
		o = &Origin{}
		c.origins[origin] = o
	}
	return o
}

// Action is what a URL's origin needs before the URL can be requested.
type Action int

const (
	// Decide: the rules are usable; decide the URL by them.
	Decide Action = iota
	// FetchFirst: no usable rules; request robots.txt now. The cache
	// counts the request as under way until Apply, Unreachable or Cut.
	FetchFirst
	// Wait: robots.txt is being fetched (perhaps through a redirect on
	// another host); wait for its outcome.
	Wait
	// Hold: robots.txt is unreachable; nothing of the origin is
	// requested until Origin.RetryAt.
	Hold
	// Fail: the retries ran out; the URL fails with Origin.Reason.
	Fail
)

// Next says what a URL of origin needs at now.
func (c *Cache) Next(origin string, now time.Time) (Action, *Origin) {
	o := c.origins[origin]
	switch {
	case o != nil && o.gaveUp:
		return Fail, o
	case o != nil && o.outcome != 0 && o.rules != nil && !o.Usable(now) && o.retryAt.After(now):
		return Hold, o
	case o != nil && o.fetching:
		return Wait, o
	case !o.Usable(now):
		o = c.origin(origin)
		o.fetching = true
		return FetchFirst, o
	}
	return Decide, o
}

// Cut ends a fetch of origin's file without an outcome (the crawl stopped,
// or the request was cancelled): the next Next fetches it again.
func (c *Cache) Cut(origin string) {
	if o := c.origins[origin]; o != nil {
		o.fetching = false
	}
}

// Apply makes a Parsed or Unavailable result origin's rules, from started
// (when its request was sent) for the TTL or the file's shorter max-age.
// A parsed file becomes the last good copy.
func (c *Cache) Apply(origin string, rr Result, started time.Time) *Origin {
	o := c.origin(origin)
	o.fetching = false
	o.fetchedAt, o.reason = started, rr.Reason()
	ttl := c.p.TTL
	if rr.MaxAge > 0 && rr.MaxAge < ttl {
		ttl = rr.MaxAge
	}
	o.rules, o.outcome, o.attempts, o.gaveUp = rr.Robots, rr.Outcome, 0, false
	o.expires = started.Add(ttl)
	if rr.Outcome == Parsed {
		o.goodBody, o.goodAt = rr.Body, started
	}
	return o
}

// Unreachability is what an unreachable robots.txt did to its origin.
type Unreachability struct {
	// GoodCopy: the last good copy (under GoodCopyMaxAge old) decides
	// until Wait has passed, when the file is asked for again.
	GoodCopy bool
	// GaveUp: the retries ran out (or the address is one no retry will
	// change): the origin's URLs fail.
	GaveUp bool
	// Wait is how long until the next try: RetryBase doubled per
	// attempt, or the server's Retry-After up to MaxHold if longer;
	// never longer than the TTL (with a good copy standing in, the
	// tries go on past Retries, and the doubling would otherwise grow
	// without end: 34 h after 14 failures).
	Wait time.Duration
}

// Unreachable applies an Unreachable result: without a good copy the
// origin is disallowed until a retry at now plus the wait, and fails once
// the retries are spent.
func (c *Cache) Unreachable(origin string, rr Result, started, now time.Time) (*Origin, Unreachability) {
	o := c.origin(origin)
	o.fetching = false
	o.fetchedAt, o.reason = started, rr.Reason()
	o.attempts++
	backoff := c.p.RetryBase << min(o.attempts-1, 16)
	wait := max(backoff, min(rr.RetryAfter, c.p.MaxHold))
	if c.p.TTL > 0 {
		wait = min(wait, c.p.TTL)
	}
	if o.goodBody != nil && started.Sub(o.goodAt) < GoodCopyMaxAge {
		o.rules, o.outcome, o.expires = robots.Parse(o.goodBody), Parsed, now.Add(wait)
		return o, Unreachability{GoodCopy: true, Wait: wait}
	}
	o.rules, o.outcome, o.expires = DisallowAll(), Unreachable, time.Time{}
	// A refused private address is configuration, not weather: no
	// retry will change it (and no request was made to count).
	if o.attempts > c.p.Retries || errors.Is(rr.Err, fetch.ErrPrivateAddress) {
		o.gaveUp = true
		return o, Unreachability{GaveUp: true}
	}
	o.retryAt = now.Add(wait)
	return o, Unreachability{Wait: wait}
}

// Record is what the state file keeps of origin after result rr, fetched
// at fetchedAt: the outcome, the body of a parsed file, the expiry, the
// attempts and the last good copy (Restore reads it back).
func (c *Cache) Record(origin string, rr Result, fetchedAt time.Time) *storage.RobotsRecord {
	o := c.origins[origin]
	if o == nil {
		o = &Origin{} // nothing applied: the result alone
	}
	rec := &storage.RobotsRecord{FetchedAt: fetchedAt, Outcome: rr.Outcome.String(), Status: rr.Status,
		ExpiresAt: o.expires, Attempts: o.attempts, GoodBody: o.goodBody, GoodAt: o.goodAt}
	if rr.Outcome == Unreachable {
		gaveUp := o.gaveUp
		rec.GaveUp = &gaveUp
	}
	if rr.Err != nil {
		rec.Error = rr.Err.Error()
	}
	if rr.Outcome == Parsed {
		rec.Body = rr.Body
	}
	return rec
}

// restore builds an origin's state from its record. A file that was
// unreachable when the record was written is fetched again: it has no
// rules until then, but stays Unreachable for what counts outcomes (the
// hosts gauge), as status, reading the record, says meanwhile. When its
// last good copy was standing in, that copy decides again until the
// retry the record names (ExpiresAt), as it did before the stop: the file
// was asked again at the host's first slot after every restart, however
// far off its retry was.
func restore(r *storage.RobotsRecord) *Origin {
	o := &Origin{fetchedAt: r.FetchedAt, expires: r.ExpiresAt, goodBody: r.GoodBody, goodAt: r.GoodAt, reason: r.Error}
	if r.Error == "" && r.Status != 0 {
		o.reason = "HTTP " + strconv.Itoa(r.Status) // as Result.Reason says a status
	}
	switch r.Outcome {
	case Parsed.String():
		o.outcome, o.rules = Parsed, robots.Parse(r.Body)
	case Unavailable.String():
		o.outcome, o.rules = Unavailable, AllowAll()
	case Unreachable.String():
		if r.GoodBody != nil && r.FetchedAt.Sub(r.GoodAt) < GoodCopyMaxAge {
			o.outcome, o.rules = Parsed, robots.Parse(r.GoodBody)
			break
		}
		o.outcome, o.expires = Unreachable, time.Time{}
	default:
		o.expires = time.Time{}
	}
	return o
}

// Restore puts back origin's state from the state file (at start). An
// unreachable file is fetched again, but its attempts count on from the
// record's (see carried): the growing wait and the give-up span restarts,
// as the README's robots_retries promises of a daemon restarted often.
// Attempts last tried more than a TTL before now are not carried: a run
// days later starts the count afresh.
func (c *Cache) Restore(origin string, r *storage.RobotsRecord, now time.Time) {
	o := restore(r)
	if r.Outcome != Unreachable.String() {
		c.origins[origin] = o
		return
	}
	if o.outcome == Parsed && (now.Sub(r.GoodAt) >= GoodCopyMaxAge || c.p.TTL > 0 && r.ExpiresAt.Sub(r.FetchedAt) > c.p.TTL) {
		// The good copy is too old by now, or its retry further off
		// than any run sets (a record from before the wait was capped
		// at the TTL): it does not stand in, and robots.txt is asked.
		o.outcome, o.rules, o.expires = Unreachable, nil, time.Time{}
	}
	if c.p.TTL <= 0 || now.Sub(r.FetchedAt) <= c.p.TTL {
		o.attempts = c.carried(r)
	}
	c.origins[origin] = o
}

// carried is how many attempts an unreachable file's record counts on
// from: its own, unless the run that wrote it gave up on the origin (the
// next run tries again from the first attempt). A file written before
// GaveUp was kept says so by retries spent with no good copy standing in.
func (c *Cache) carried(r *storage.RobotsRecord) int {
	if r.GaveUp != nil {
		if *r.GaveUp {
			return 0
		}
		return r.Attempts // on, even past robots_retries lowered since
	}
	goodCopy := r.GoodBody != nil && r.FetchedAt.Sub(r.GoodAt) < GoodCopyMaxAge
	if r.Attempts > c.p.Retries && !goodCopy {
		return 0
	}
	return r.Attempts
}

// Import takes origin's record from another node of a cluster unless a
// fetch is under way here, ours is as new, or its rules are no longer
// usable at now. It reports whether the record was taken.
func (c *Cache) Import(origin string, r *storage.RobotsRecord, now time.Time) (*Origin, bool) {
	if o := c.origins[origin]; o != nil && (o.fetching || !o.fetchedAt.Before(r.FetchedAt)) {
		return o, false
	}
	n := restore(r)
	if !n.Usable(now) {
		return c.origins[origin], false
	}
	c.origins[origin] = n
	return n, true
}
