package crawler

import (
	"github.com/politecrawl/politecrawl/crawler/resolve"
	"github.com/politecrawl/politecrawl/frontier"
)

// askLookups hands the hosts whose names the frontier wants looked up
// (before their first request, or once their address expired) to the
// resolver, as many as it has room for.
func (c *Crawler) askLookups() {
	if room := c.lookups.Room(); room > 0 {
		for _, host := range c.front.Lookups(room) {
			c.lookups.Ask(host)
		}
	}
}

// resolved gives the frontier a lookup's answer: the host joins its IP
// group and is back in the schedule.
func (c *Crawler) resolved(a resolve.Answer) {
	c.lookups.Took()
	if a.Err != nil {
		c.log.Info("host name lookup failed", "host", a.Host, "error", a.Err.Error())
	}
	c.front.Resolved(a.Host, a.IP, a.Err, a.Until, c.cfg.Now())
}

// lookingUp reports whether lookups are asked or waiting to be.
func (c *Crawler) lookingUp() bool {
	return c.lookups.Pending() > 0 || c.front.LookupsWaiting() > 0
}

// delayPolicy is the frontier's delay policy from the configuration.
func (c *Config) delayPolicy() frontier.DelayPolicy {
	return frontier.DelayPolicy{Default: c.DefaultDelay, Max: c.MaxDelay, LatencyFactor: c.LatencyFactor, ErrorBackoff: c.ErrorBackoff}
}
