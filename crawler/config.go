package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/metrics"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/frontier/scope"
)

// Config is everything a crawl needs. Zero values take the defaults
// documented on each field (see Defaults).
type Config struct {
	Agent string   // product token for robots.txt and <meta name>
	Seeds []string // absolute http(s) URLs
	Scope []string // host or host:port; empty = the seeds' hosts, unless Rules include some
	// Rules are the other scope rules (domains, prefixes, seed_prefix,
	// excludes, skip_extensions); their Hosts and Seeds are Scope and
	// Seeds. See frontier/scope.
	Rules scope.Config
	// Hosts are the per-host overrides (the config's hosts: section).
	Hosts        map[string]frontier.Override
	Workers      int // concurrent fetches overall
	Limits       frontier.Limits
	DefaultDelay time.Duration // spacing floor per host
	// IPMaxInFlight caps requests in flight to one IP across all its hosts
	// (0: no cap); IPDelay spaces request starts to one IP (0: none).
	IPMaxInFlight int
	IPDelay       time.Duration
	MaxDelay      time.Duration // cap on Crawl-delay / Request-rate spacing
	// LatencyFactor and ErrorBackoff make each host's delay follow its
	// server: LatencyFactor times its smoothed time to first byte, doubled
	// on errors (see frontier.Adaptive). 0 and false: a fixed delay.
	LatencyFactor float64
	ErrorBackoff  bool
	// Lookup, if set, replaces the system resolver for the hosts' names
	// (tests map names to addresses with it); DNSTTL is how long a looked-up
	// address is used (default 1m, network.dns_ttl). See crawler/resolve.
	Lookup   func(ctx context.Context, host string) ([]netip.Addr, error)
	DNSTTL   time.Duration
	Sitemaps bool // read the Sitemap: lines of robots.txt
	// MaxSitemapsPerHost caps sitemap files fetched from one host (default 100).
	MaxSitemapsPerHost int
	Fetch              fetch.Options // UserAgent, From, timeouts, MaxBody, AllowPrivate

	MaxRetries      int           // fetch attempts per URL before failed (default 3)
	BackoffBase     time.Duration // first host backoff after 5xx/429/timeout (default 5s)
	BackoffMax      time.Duration // backoff cap (default 10m)
	MaxHold         time.Duration // cap on Retry-After (default 1h)
	RobotsRetries   int           // retries of an unreachable robots.txt (default 3)
	RobotsRetryBase time.Duration // first robots.txt retry delay, doubling (default 15s)
	RobotsTTL       time.Duration // robots.txt cache lifetime (default 24h)
	MaxRedirects    int           // redirect hops followed from one URL (default 10)
	// MaxLinksPerPage caps the links of one page that are queued (default
	// 10,000); the rest are counted in the page's record, not queued.
	MaxLinksPerPage int
	ShutdownGrace   time.Duration // in-flight fetches allowed to finish on stop (default 5s)
	// Recrawl, when positive, keeps Run going after the frontier drains:
	// every fetched page (and read sitemap) is due again this long after
	// its fetch, and is checked with a conditional GET.
	Recrawl time.Duration
	// Freshness is the recheck policy when Recrawl is set: zero, every
	// page every Recrawl; Adaptive, each page's interval learnt from its
	// changes within Min and Max, spending Share of each host's
	// politeness capacity (see frontier/freshness).
	Freshness   freshness.Policy
	StoreBodies bool // keep page bodies (not for noindex pages)
	// Purpose is the crawl's declared purpose (policy.purpose; see
	// crawler/contentuse): URLs whose robots.txt says no to it are not
	// fetched, responses whose headers or meta tags say no are not
	// stored. "" declares none: the signals are only recorded.
	Purpose string
	// Archive, if set, receives every HTTP exchange as WARC records; see
	// crawler/archive. The crawl syncs it before each state commit.
	Archive *archive.Writer

	Logger *slog.Logger     // nil: discard
	Now    func() time.Time // nil: time.Now
	// ResumeHint is the command that resumes a paused host, without its
	// host arguments: the log names it when a run ends with URLs held
	// on paused hosts (frontier.Held). "": none named.
	ResumeHint string
	// Observe, if set, is called on the coordinator goroutine for every URL
	// whose outcome was just committed (never for one that was rolled back).
	Observe func(Event)
	// Metrics, if set, receives the crawl's Prometheus measurements.
	Metrics *metrics.Metrics
	// Node, if set, makes this crawl one node of a cluster (see Node): it
	// admits through the cluster, serves only the hosts Node allows, and
	// Run returns only when its context ends, not when the node's own
	// frontier is empty (the cluster decides when the crawl is drained).
	Node Node
}

// Event is one URL outcome, for progress displays.
type Event struct {
	URL    string
	State  string // fetched, disallowed, failed, skipped, retry
	Status int
	Reason string
}

// Defaults fills zero fields.
func (c *Config) Defaults() {
	if c.Workers <= 0 {
		c.Workers = 8
	}
	c.Workers = min(c.Workers, maxWorkers)
	if c.MaxSitemapsPerHost <= 0 {
		c.MaxSitemapsPerHost = 100
	}
	if c.MaxRetries <= 0 {
		c.MaxRetries = 3
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = 5 * time.Second
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 10 * time.Minute
	}
	if c.MaxHold <= 0 {
		c.MaxHold = time.Hour
	}
	if c.RobotsRetries < 0 {
		c.RobotsRetries = 0
	} else if c.RobotsRetries == 0 {
		c.RobotsRetries = 3
	}
	if c.RobotsRetryBase <= 0 {
		c.RobotsRetryBase = 15 * time.Second
	}
	if c.RobotsTTL <= 0 {
		c.RobotsTTL = 24 * time.Hour
	}
	if c.MaxLinksPerPage <= 0 {
		c.MaxLinksPerPage = 10000
	}
	if c.MaxRedirects <= 0 {
		c.MaxRedirects = 10
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Archive != nil {
		c.Fetch.Capture = true
	}
}

// withClock gives the fetch options the crawl's clock unless they have one.
func withClock(o fetch.Options, now func() time.Time) fetch.Options {
	if o.Now == nil {
		o.Now = now
	}
	return o
}

func (c *Config) validate() error {
	if c.Agent == "" {
		return fmt.Errorf("crawler config: agent name is empty")
	}
	if c.Fetch.UserAgent == "" {
		c.Fetch.UserAgent = c.Agent
	}
	return nil
}
