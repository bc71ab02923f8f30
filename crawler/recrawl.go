package crawler

import "github.com/politecrawl/politecrawl/storage"

// The recheck schedule is the frontier's (frontier/recheck.go): the
// coordinator only gives it its turns, each in a batch of the group
// commit.

// promoteDue moves the rechecks whose time has come into their hosts'
// queues, in one transaction.
func (c *Crawler) promoteDue() error {
	now := c.cfg.Now()
	if due := c.front.NextDue(); due.IsZero() || due.After(now) {
		return nil
	}
	return c.update(func(tx *storage.Tx) error { return c.front.Promote(tx, now) })
}

// sweepSome does the next chunk of the schedule being redone (see
// frontier's PlanSweep).
func (c *Crawler) sweepSome() error {
	return c.update(func(tx *storage.Tx) error { return c.front.SweepSome(tx, c.cfg.Now()) })
}
