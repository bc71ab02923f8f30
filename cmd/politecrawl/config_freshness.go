package main

import "github.com/politecrawl/politecrawl/frontier/freshness"

// The recheck policy's keys: daemon.recrawl_policy (fixed or adaptive),
// daemon.recrawl_min and daemon.recrawl_max (the adaptive intervals'
// bounds), daemon.recrawl_share (the part of each host's politeness
// capacity rechecks may use). daemon.recrawl_interval stays the switch:
// without it nothing is rechecked.

// freshnessPolicy is the engine's recheck policy.
func (c *Config) freshnessPolicy() freshness.Policy {
	d := c.Daemon
	return freshness.Policy{Adaptive: d.RecrawlPolicy == "adaptive", Interval: d.RecrawlInterval,
		Min: d.RecrawlMin, Max: d.RecrawlMax, Share: d.RecrawlShare}
}

// freshnessProblems checks the recheck policy's keys.
func (c *Config) freshnessProblems(bad func(key, format string, args ...any)) {
	d := c.Daemon
	switch d.RecrawlPolicy {
	case "fixed":
	case "adaptive":
		if d.RecrawlInterval <= 0 {
			bad("daemon.recrawl_policy", "adaptive needs daemon.recrawl_interval (the first guess of a page's interval, and the sitemaps' re-read interval)")
		}
	default:
		bad("daemon.recrawl_policy", "%q must be fixed or adaptive", d.RecrawlPolicy)
	}
	if d.RecrawlMin <= 0 {
		bad("daemon.recrawl_min", "%v must be positive", d.RecrawlMin)
	}
	if d.RecrawlMax < d.RecrawlMin {
		bad("daemon.recrawl_max", "%v must be at least daemon.recrawl_min (%v)", d.RecrawlMax, d.RecrawlMin)
	}
	if !(d.RecrawlShare > 0 && d.RecrawlShare <= 1) {
		bad("daemon.recrawl_share", "%g must be more than 0 and at most 1", d.RecrawlShare)
	}
}
