package crawler

import (
	"log/slog"
	"time"

	"github.com/politecrawl/politecrawl/crawler/resolve"
	"github.com/politecrawl/politecrawl/frontier"
)

// hostLookups owns the crawl's host name lookups: it asks the resolver for
// the names the frontier wants, and gives the frontier the answers.
type hostLookups struct {
	resolver *resolve.Resolver
	front    *frontier.Frontier[task]
	log      *slog.Logger
	now      func() time.Time
}

// ask hands the hosts whose names the frontier wants looked up
// (before their first request, or once their address expired) to the
// resolver, as many as it has room for.
func (c *hostLookups) ask() {
	if room := c.resolver.Room(); room > 0 {
		for _, host := range c.front.Lookups(room) {
			c.resolver.Ask(host)
		}
	}
}

// resolved gives the frontier a lookup's answer: the host joins its IP
// group and is back in the schedule.
func (c *hostLookups) resolved(a resolve.Answer) {
	c.resolver.Took()
	if a.Err != nil {
		c.log.Info("host name lookup failed", "host", a.Host, "error", a.Err.Error())
	}
	c.front.Resolved(a.Host, a.IP, a.Others, a.Err, a.Until, c.now())
}

// busy reports whether lookups are asked or waiting to be.
func (c *hostLookups) busy() bool {
	return c.resolver.Pending() > 0 || c.front.LookupsWaiting() > 0
}

// delayPolicy is the frontier's delay policy from the configuration.
func (c *Config) delayPolicy() frontier.DelayPolicy {
	return frontier.DelayPolicy{Default: c.DefaultDelay, Max: c.MaxDelay, LatencyFactor: c.LatencyFactor, ErrorBackoff: c.ErrorBackoff}
}
