package crawler

import (
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/storage"
)

// gauges refreshes the gauges from the coordinator's state.
func (c *Crawler) gauges() {
	if c.cfg.Metrics == nil {
		return
	}
	counts := map[string]int{"parsed": 0, "unavailable": 0, "unreachable": 0, "gave_up": 0, "fetching": 0}
	c.robots.Each(func(_ string, o *robotscache.Origin) {
		switch {
		case o.GaveUp():
			counts["gave_up"]++
		case o.Outcome() != 0:
			counts[o.Outcome().String()]++
		case o.Fetching():
			counts["fetching"]++
		}
	})
	// In flight as status counts it: tasks waiting for a worker are not
	// under way.
	c.cfg.Metrics.Gauges(c.front.QueuedTotal(), c.work.gate.Busy(), counts)
	// The committed totals: a read of five counters.
	urls := map[string]int{}
	if c.db.View(func(tx *storage.Tx) error {
		for s, n := range tx.Counts() {
			urls[string(s)] = n
		}
		return nil
	}) == nil {
		c.cfg.Metrics.URLs(urls)
	}
}
