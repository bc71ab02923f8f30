package crawler

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// siteRules owns what a URL's site allows: the origins' robots.txt rules
// (read from the crawl's robots.txt cache) and, with a declared purpose,
// their content-use signals and tdmrep.json files (sites, which
// applyTDMRep fills as their requests come back). Admission (Verdict),
// dispatch and Explain ask it the same questions.
type siteRules struct {
	cfg    *Config
	log    *slog.Logger
	robots *robotscache.Cache
	sites  *contentuse.Sites // each origin's tdmrep.json; nil without a declared purpose
}

// Verdict is what admission asks (frontier.Options.Robots): URLs whose
// origin's robots.txt is known are recorded disallowed (or failed, when
// robots.txt stayed unreachable) without ever entering a queue. A
// content-use signal of robots.txt that says no to the declared purpose
// refuses a URL the same way (see refusePage).
func (c *siteRules) Verdict(url string) frontier.Verdict {
	o := c.robots.Lookup(originOf(url))
	switch {
	case o == nil:
		return frontier.Verdict{}
	case o.GaveUp():
		return frontier.Verdict{State: storage.Failed, Reason: gaveUpReason(o)}
	case o.Usable(c.cfg.Now()):
		return c.refusePage(o, url)
	}
	return frontier.Verdict{}
}

// disallowed checks url against o's rules; ok is true when allowed.
func (c *siteRules) disallowed(o *robotscache.Origin, url string) (string, bool) {
	d := o.Rules().Explain(c.cfg.Agent, url)
	if d.Allowed {
		return "", true
	}
	if o.Outcome() == robotscache.Unreachable {
		return "robots.txt unreachable: " + o.Reason(), false
	}
	if d.Rule != nil {
		return fmt.Sprintf("robots.txt: Disallow: %s (line %d)", d.Rule.Pattern, d.Rule.Line), false
	}
	return "robots.txt", false
}

// robotsOutcomes owns what a robots.txt request's result does: a redirect
// hop scheduled on its target host, an outcome applied to its origin (the
// robots.txt cache) and its host's spacing (the frontier), written down,
// and, when robots.txt stays unreachable or the host's address is
// private, the origin's URLs failed. After a live change of the delay
// settings it applies every origin's rules to its host's spacing again
// (reapplyDelays).
type robotsOutcomes struct {
	cfg     *Config
	log     *slog.Logger
	front   *frontier.Frontier[task]
	robots  *robotscache.Cache
	commits *groupcommit.Pipeline[Event]
	urls    *urlWriter
}

// errCrossShard: a robots.txt redirect to a host of another node.
var errCrossShard = errors.New("redirect to a host another node serves")

// robotsStep handles one robots.txt request: a redirect becomes a hop
// scheduled on its target host's slot; anything else is the outcome.
func (c *robotsOutcomes) robotsStep(tx *storage.Tx, r result, appliedEarlier bool, now time.Time) error {
	if r.next != "" && robotscache.Hop(r.robots, r.next) {
		n, err := urlnorm.Normalise(r.next)
		if err == nil && c.cfg.Node != nil && !c.cfg.Node.Serves(urlnorm.Authority(n)) {
			// Its target host is another node's to request: as a
			// redirect that cannot be followed, robots.txt is taken as
			// unavailable (RFC 9309 2.3.1.2 lets a crawler stop
			// following redirects).
			c.log.Info("robots.txt redirects to a host another node serves; taken as unavailable", "origin", r.task.origin, "to", n)
			err = errCrossShard
		}
		if err == nil {
			hop := r.task
			hop.host, hop.url, hop.robots = urlnorm.Authority(n), n, r.robots
			c.front.AddHop(hop.host, hop, now)
			return nil
		}
		r.robots.Outcome, r.robots.Robots = robotscache.Unavailable, robotscache.AllowAll()
	}
	return c.recordRobots(tx, r, appliedEarlier, now)
}

// recordRobots applies a robots.txt outcome to its origin and host and
// writes it down.
func (c *robotsOutcomes) recordRobots(tx *storage.Tx, r result, appliedEarlier bool, now time.Time) error {
	origin, rr := r.task.origin, r.robots
	host := urlnorm.Authority(origin)
	defer c.front.Wake(host, now)
	if ref := privateRefusal(rr.Err, r.task.host); ref != nil {
		return c.refusePrivate(tx, r, ref, now)
	}
	if rr.Outcome == robotscache.Parsed || rr.Outcome == robotscache.Unavailable {
		if !appliedEarlier {
			c.applyRobots(r, now)
		}
		rec := c.robots.Record(origin, *rr, r.started)
		if rr.Outcome == robotscache.Parsed {
			if err := c.front.DeclareSitemaps(tx, origin, c.robots.Lookup(origin).Rules(), now); err != nil {
				return err
			}
		}
		if c.cfg.Node != nil {
			c.cfg.Node.Robots(origin, rec)
		}
		return tx.PutRobots(origin, rec)
	}
	c.cfg.Metrics.Robots(rr.Outcome.String())
	o, u := c.robots.Unreachable(origin, *rr, r.started, now)
	log := c.log.With("host", host, "origin", origin)
	switch {
	case u.GoodCopy:
		// Keep crawling by the last good copy (its pace too: after a
		// restart nothing else set it); try again later.
		if r := c.hostRules(host, now); r != nil {
			c.front.ApplyRobots(host, r, c.cfg.Agent, now)
		}
		log.Warn("robots.txt unreachable; using the last good copy", "reason", o.Reason(), "good_copy_from", o.GoodAt(), "retry_in", u.Wait)
	case u.GaveUp:
		log.Warn("robots.txt unreachable; giving up on the host's URLs", "reason", o.Reason(), "attempts", o.Attempts())
		if err := c.failOrigin(tx, host, origin, gaveUpReason(o)); err != nil {
			return err
		}
	default:
		c.front.Hold(host, o.RetryAt(), now)
		log.Warn("robots.txt unreachable; host disallowed until retry", "reason", o.Reason(), "retry_in", u.Wait, "attempt", o.Attempts())
	}
	return tx.PutRobots(origin, c.robots.Record(origin, *rr, r.started))
}

// robotsReleasable reports whether a robots.txt result may be applied
// when it comes back, before it is recorded (see receive): an outcome that
// decides the origin's URLs (rules, or none), with no redirect left to
// follow and no sitemaps to declare (those are recorded with it, and read
// before the host's pages).
func (c *robotsOutcomes) robotsReleasable(r result) bool {
	if r.task.kind != taskRobots || r.robots == nil || r.next != "" {
		return false
	}
	switch r.robots.Outcome {
	case robotscache.Parsed:
		return !c.cfg.Sitemaps || len(r.robots.Robots.Sitemaps()) == 0
	case robotscache.Unavailable:
		return true
	}
	return false
}

// applyRobots makes a parsed or unavailable robots.txt the origin's rules
// and its host's spacing; recordRobots writes it down.
func (c *robotsOutcomes) applyRobots(r result, now time.Time) {
	origin, rr := r.task.origin, r.robots
	host := urlnorm.Authority(origin)
	started := r.started
	if !r.sent.IsZero() {
		started = r.sent
	}
	c.cfg.Metrics.Robots(rr.Outcome.String())
	o := c.robots.Apply(origin, *rr, started)
	rules := c.hostRules(host, now)
	if rules == nil {
		rules = o.Rules()
	}
	c.front.ApplyRobots(host, rules, c.cfg.Agent, now)
	c.log.Info("robots.txt", "host", host, "origin", origin, "outcome", rr.Outcome.String(), "status", rr.Status,
		"interval", c.front.Interval(host))
	c.front.Wake(host, now)
}

// failOrigin fails every queued URL of origin on host (see
// Frontier.GiveUpOrigin) and reports each as an outcome.
func (c *robotsOutcomes) failOrigin(tx *storage.Tx, host, origin, reason string) error {
	// Until this batch commits, the committed queue still holds them.
	var gen uint64
	if c.commits.Running() {
		gen = c.commits.Gen() + 1
	}
	failed, err := c.front.GiveUpOrigin(tx, host, origin, reason, gen, c.cfg.Now())
	for _, u := range failed {
		c.urls.event(Event{URL: u, State: string(storage.Failed), Reason: reason})
	}
	return err
}
