package crawler

import (
	"fmt"
	"net/http"

	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/storage"
)

// Results are recorded by the coordinator and committed by a committer
// goroutine (package groupcommit owns the batches and the committer), so
// that a host's next request does not wait for the commit of its previous
// result:
//
//   - A result coming back frees its worker at once. A plain page result
//     (no error, no 429 or 5xx: nothing that makes the host back off) also
//     frees its host's slot at once: the request is over and its start is
//     known. So does a robots.txt that decides the origin (rules, or none):
//     it is applied to the origin and the host's spacing at once, and
//     written down with the next batch (a tdmrep.json answer too). Others
//     (errors, 429 and 5xx, an unreachable robots.txt, redirects, sitemaps)
//     keep the slot until recorded, since they may make the host wait.
//   - Results wait in received while the committer writes the previous
//     batch. Once it is idle, the coordinator records them into a new
//     batch, recordChunk at a time, taking in results and dispatching
//     between chunks, and hands the batch over when nothing is left to
//     record (group commit: the more results come back during a commit,
//     the bigger the next one).
//   - A host's next URL comes from its in-memory queue head (see
//     frontier.Host), which follows what was recorded: a URL queued in a batch not
//     committed yet may be fetched already.
//   - A result counts as recorded once its batch committed: only then are
//     its events reported. A crash before that loses only results nobody
//     was told about. Their URLs are still queued (or, if they were found
//     by such a result, are found again) and are fetched again after a
//     restart; the restart spaces every host as after any crash.
//
// One write transaction exists at a time (bbolt's rule), so the
// coordinator opens the next batch only once the committer is idle; it
// never blocks on a commit to record results, only for rarer writes
// (settling URLs, control calls), which wait for the commit under way.

// update runs fn in a new batch, after recording every received result in
// it, and hands the batch to the committer. It waits only for the commit
// under way, if any. fn's error fails the whole batch: callers treat it as
// fatal (a storage failure) and stop the crawl. Events fn reports are
// delivered once the batch committed.
func (c *Crawler) update(fn func(tx *storage.Tx) error) error {
	b, err := c.commits.Open()
	if err != nil {
		return err
	}
	if n := c.received.Len(); n > 0 {
		err = b.Do(func(tx *storage.Tx) error { return c.recordReceived(tx, n) })
		c.commits.Recorded(n)
	}
	if err == nil && fn != nil {
		err = b.Do(fn)
	}
	if err != nil {
		c.commits.Drop()
		return err
	}
	return c.handOver()
}

// recordChunk is how many received results the coordinator records into
// the open batch at a time: between chunks it takes in results and
// dispatches, so a long batch does not hold up hosts whose slots are free.
const recordChunk = 16

// recordSome records the next chunk of received results into the open
// batch (opening one), and hands the batch over when they are all in and
// it is due, or at once if now.
func (c *Crawler) recordSome(now bool) error {
	b, err := c.commits.Open()
	if err != nil {
		return err
	}
	if c.received.Len() == 0 {
		return c.handOver()
	}
	n := min(recordChunk, c.received.Len())
	if err := b.Do(func(tx *storage.Tx) error { return c.recordReceived(tx, n) }); err != nil {
		c.commits.Drop()
		return err
	}
	c.commits.Recorded(n)
	if c.commits.Full() || (c.received.Len() == 0 && (c.commits.Due() || now)) {
		return c.handOver()
	}
	return nil
}

// updateAlone runs fn in a batch of its own and waits for its commit: for
// callers whose error must not cost other results (control calls).
//
// A failure to flush is a failure to record the crawl's own results (their
// batch is dropped, or the commit under way failed): while the crawl runs
// it stops the crawl, as any failure to record does, rather than run on
// without them. fn's own error costs only its own batch.
func (c *Crawler) updateAlone(fn func(tx *storage.Tx) error) error {
	if err := c.flush(); err != nil {
		if c.commits.Running() {
			c.fatal = fmt.Errorf("record results: %w", err)
		}
		return err
	}
	if err := c.update(fn); err != nil {
		return err
	}
	return c.commits.WaitCommit()
}

// flush records every received result and waits until all is committed.
func (c *Crawler) flush() error {
	if c.received.Len() > 0 || c.commits.Batch() != nil || len(c.commits.Noted()) > 0 {
		if err := c.update(nil); err != nil {
			return err
		}
	}
	return c.commits.WaitCommit()
}

// handOver passes the batch just built to the committer (a cluster node
// first learns what it decided), or commits it here when no committer runs
// (before and after Run).
func (c *Crawler) handOver() error {
	c.node.handOverDecided(c.commits.Batch(), c.commits.Noted())
	return c.commits.HandOver()
}

// committed completes a committed batch: its events are reported, and
// hosts whose next URLs it made visible get their turn.
func (c *Crawler) committed(j *groupcommit.Job[Event]) error {
	c.cfg.Metrics.Committed(j.Took, j.Results)
	c.front.Committed(j.Gen, c.cfg.Now())
	if c.cfg.Observe != nil {
		for _, e := range j.Events {
			c.cfg.Observe(e)
		}
	}
	return nil
}

// event notes an outcome of the batch being built, reported once it
// committed.
func (c *urlWriter) event(e Event) {
	if c.cfg.Observe != nil || c.cfg.Node != nil {
		c.commits.Note(e)
	}
}

// receive takes a worker's result: the worker is free again, and a plain
// page result frees its host's slot too (see the top of this file). The
// result waits in received (or, for a link-heavy page, in pending) to be
// recorded.
func (c *Crawler) receive(r result) error {
	if r.archiveErr != nil {
		return fmt.Errorf("record results: archive %s: %w", r.task.url, r.archiveErr)
	}
	c.inflight--
	c.front.Back(r.task.host, r.task.claim, r.sent, c.cfg.Now())
	c.node.handOverEarly(&r)
	if bigPage(r) {
		c.startPending(r)
		return nil
	}
	switch {
	case releasable(r):
		c.release(&r)
	case c.origins.robotsReleasable(r):
		c.origins.applyRobots(r, c.cfg.Now())
		c.release(&r)
	case r.task.kind == taskTDMRep:
		// A failure keeps the slot: the host backs off in record. So does
		// a request the private-address guard refused: record gives the
		// slot back unspent (nothing was sent).
		if _, _, failed := tdmRepFailure(c.fetchCtx, r, c.cfg.Now()); !failed {
			c.rules.applyTDMRep(c.fetchCtx, r)
			if refusedUnsent(r) == nil {
				c.release(&r)
			}
		}
	}
	c.received.Push(r)
	c.receivedSize += resultSize(r)
	return nil
}

// releasable reports whether r's host may have its slot back before r is
// recorded: a page that came back with a status that does not make the
// host back off.
func releasable(r result) bool {
	return r.task.kind == taskPage && r.err == nil && r.page != nil &&
		r.page.Status != http.StatusTooManyRequests && r.page.Status < 500
}

// release ends r's claim: its start counts for the host's (and IP
// group's) spacing from when it was written, and the slot is open for the
// next URL. It reports false if the claim had ended already.
func (c *Crawler) release(r *result) bool {
	now := c.cfg.Now()
	c.front.Observe(r.task.host, r.task.claim, r.ttfb, now)
	return c.front.Release(r.task.host, r.task.claim, r.sent, r.ip, now)
}

// recordReceived records the first n received results, in the order
// they came.
func (c *Crawler) recordReceived(tx *storage.Tx, n int) error {
	for i := 0; i < n; i++ {
		r := c.received.At(i)
		if err := c.record(tx, *r); err != nil {
			return err
		}
		c.receivedSize -= resultSize(*r)
	}
	c.received.Drop(n)
	return nil
}

// receiveReady takes in the results already waiting, without blocking.
func (c *Crawler) receiveReady(results <-chan result) error {
	for {
		select {
		case r := <-results:
			if err := c.receive(r); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// resultSize is roughly what a result waiting to be recorded holds in
// memory: its stored body, its links (a sitemap's entries), a robots.txt
// body and its parsed rules (counted as much again).
func resultSize(r result) int {
	n := len(r.gzBody) + 256
	if r.links != nil {
		for _, u := range r.links.URLs {
			n += len(u) + 16
		}
		for _, b := range r.links.Bad {
			n += len(b.URL) + len(b.Reason) + 32
		}
	}
	if r.robots != nil {
		n += 2 * len(r.robots.Body)
	}
	n += len(r.tdm.Body)
	for _, e := range r.entries {
		n += len(e.URL) + 64
	}
	return n
}
