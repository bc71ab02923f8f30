package crawler

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// ErrNotRunning is returned by the control methods when Run is not
// running (not started yet, or finished).
var ErrNotRunning = errors.New("crawl is not running")

// call is a function to run on the coordinator goroutine.
type call struct {
	fn   func()
	done chan struct{}
}

// do runs fn on the coordinator goroutine, between units of work, and
// waits for it. All control methods go through here, so the coordinator
// stays the only owner of the crawl's state.
func (c *Crawler) do(ctx context.Context, fn func()) error {
	cl := call{fn: fn, done: make(chan struct{})}
	select {
	case c.control <- cl:
	case <-c.stopped:
		return ErrNotRunning
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-cl.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Status returns the live status of the running crawl: the coordinator
// copies what is in memory, and the state file is read after, off the
// coordinator (see status.go).
func (c *Crawler) Status(ctx context.Context) (*status.Status, error) {
	var live liveHosts
	if e := c.do(ctx, func() { live = c.liveHosts() }); e != nil {
		return nil, e
	}
	return c.liveStatus(ctx, live)
}

// SeedResult says what became of one URL given to AddSeeds.
type SeedResult struct {
	URL     string `json:"url"`
	Outcome string `json:"outcome"` // queued, "known: " and RecordWhy of its record, out of scope, invalid: ..., or the state it was recorded in
}

// AddSeeds admits URLs as seeds (depth 0), each still subject to scope,
// limits and robots.txt. It works on a running crawl; before Run, the
// seeds of Config do the same.
func (c *Crawler) AddSeeds(ctx context.Context, urls []string) ([]SeedResult, error) {
	var out []SeedResult
	var err error
	if e := c.do(ctx, func() { out, err = c.addSeedList(urls) }); e != nil {
		return nil, e
	}
	return out, err
}

func (c *Crawler) addSeedList(urls []string) ([]SeedResult, error) {
	out := make([]SeedResult, 0, len(urls))
	err := c.updateAlone(func(tx *storage.Tx) error {
		out = out[:0]
		for _, raw := range urls {
			outcome, known, err := c.front.Seed(tx, raw, c.cfg.Now())
			c.urls.reportRefusals()
			if err != nil {
				return err
			}
			if known != nil { // its record, as why and the export say it
				outcome += ": " + RecordWhy(known)
			}
			res := SeedResult{URL: raw, Outcome: outcome}
			out = append(out, res)
		}
		return nil
	})
	return out, err
}

// Live is the part of the configuration a running crawl can change.
type Live struct {
	Seeds        []string
	Scope        []string // empty: the seeds' hosts, unless Rules include some
	Rules        scope.Config
	Hosts        map[string]frontier.Override
	DefaultDelay time.Duration
	MaxDelay     time.Duration
	Workers      int
}

// Reconfigure applies a new Live configuration to the running crawl and
// returns a line per change made.
func (c *Crawler) Reconfigure(ctx context.Context, l Live) ([]string, error) {
	var changes []string
	var err error
	if e := c.do(ctx, func() { changes, err = c.reconfigure(l) }); e != nil {
		return nil, e
	}
	return changes, err
}

func (c *Crawler) reconfigure(l Live) ([]string, error) {
	var changes []string
	now := c.cfg.Now()
	l.Workers = min(l.Workers, maxWorkers)
	if l.Workers > 0 && l.Workers != c.cfg.Workers {
		changes = append(changes, fmt.Sprintf("workers %d -> %d", c.cfg.Workers, l.Workers))
		c.cfg.Workers = l.Workers
		c.work.grow()
	}
	// Set again even when unchanged: the entries' lines may have moved.
	hostChanges := frontier.OverrideChanges(c.cfg.Hosts, l.Hosts)
	hostsChanged := len(hostChanges) > 0
	changes = append(changes, hostChanges...)
	c.cfg.Hosts = l.Hosts
	c.front.SetOverrides(frontier.NewOverrides(l.Hosts))
	if hostsChanged || l.DefaultDelay != c.cfg.DefaultDelay || l.MaxDelay != c.cfg.MaxDelay {
		if l.DefaultDelay != c.cfg.DefaultDelay {
			changes = append(changes, fmt.Sprintf("politeness.default_delay %v -> %v", c.cfg.DefaultDelay, l.DefaultDelay))
		}
		if l.MaxDelay != c.cfg.MaxDelay {
			changes = append(changes, fmt.Sprintf("politeness.max_delay %v -> %v", c.cfg.MaxDelay, l.MaxDelay))
		}
		c.cfg.DefaultDelay, c.cfg.MaxDelay = l.DefaultDelay, l.MaxDelay
		c.origins.reapplyDelays(now)
	}
	// Compiled again even when unchanged: the rules' lines in the file
	// may have moved.
	changed := !slices.Equal(l.Scope, c.cfg.Scope) || !slices.Equal(l.Seeds, c.cfg.Seeds) || !sameRules(l.Rules, c.cfg.Rules)
	old := c.cfg
	c.cfg.Scope, c.cfg.Seeds, c.cfg.Rules = l.Scope, l.Seeds, l.Rules
	s, err := c.scope()
	if err != nil {
		c.cfg = old
		return changes, err
	}
	c.front.SetScope(s)
	if changed {
		changes = append(changes, fmt.Sprintf("scope: %d rule(s)", len(s.Rules())))
	}
	// Seeding is idempotent: known seeds are left alone.
	c.cfg.Seeds = l.Seeds
	res, err := c.addSeedList(l.Seeds)
	if err != nil {
		return changes, err
	}
	added := 0
	for _, r := range res {
		if r.Outcome == "queued" {
			added++
		}
	}
	if added > 0 {
		changes = append(changes, fmt.Sprintf("seeds: %d new URL(s) queued", added))
	}
	return changes, nil
}

// reapplyDelays recomputes every host's spacing from its robots.txt (at
// a restart and a reload): hostRules of each host.
func (c *robotsOutcomes) reapplyDelays(now time.Time) {
	hosts := map[string]bool{}
	c.robots.Each(func(origin string, _ *robotscache.Origin) { hosts[urlnorm.Authority(origin)] = true })
	rules := make(map[string]*robots.Robots, len(hosts))
	for host := range hosts {
		if r := c.hostRules(host, now); r != nil {
			rules[host] = r
		}
	}
	c.front.SetDelays(c.cfg.delayPolicy(),
		func(host string) *robots.Robots { return rules[host] }, c.cfg.Agent, now)
}

// hostRules is the robots.txt that sets host's spacing: of its origins
// (http and https share a host), the one asking for the slowest pace, so
// no origin's Crawl-delay or Request-rate is undercut by the other's; the
// last good copy stands in for a file that is unreachable. nil: none
// known.
func (c *robotsOutcomes) hostRules(host string, now time.Time) *robots.Robots {
	var best *robots.Robots
	var slowest time.Duration
	for _, scheme := range [...]string{"http://", "https://"} {
		o := c.robots.Lookup(scheme + host)
		if o == nil {
			continue
		}
		r := o.Rules()
		if r == nil {
			r = o.GoodCopy(now)
		}
		if r == nil {
			continue
		}
		if d := pace(r, c.cfg.Agent); best == nil || d > slowest {
			best, slowest = r, d
		}
	}
	return best
}

// pace is the spacing r asks of agent: the larger of its Crawl-delay and
// its Request-rate's interval.
func pace(r *robots.Robots, agent string) time.Duration {
	d, _ := r.CrawlDelay(agent)
	if rate, ok := r.RequestRate(agent); ok {
		d = max(d, rate.Interval())
	}
	return d
}

// sameRules compares two sets of scope rules, Where aside.
func sameRules(a, b scope.Config) bool {
	a.Where, b.Where = nil, nil
	return reflect.DeepEqual(a, b)
}

// AddSeedsOffline is AddSeeds for a crawl that is not running: the seeds
// are written to the state file for the next Run. Do not call it while
// Run runs.
func (c *Crawler) AddSeedsOffline(urls []string) ([]SeedResult, error) {
	return c.addSeedList(urls)
}
