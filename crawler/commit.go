package crawler

import (
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// Results are recorded by the coordinator and committed by a committer
// goroutine, so that a host's next request does not wait for the commit of
// its previous result:
//
//   - A result coming back frees its worker at once. A plain page result
//     (no error, no 429 or 5xx: nothing that makes the host back off) also
//     frees its host's slot at once: the request is over and its start is
//     known. So does a robots.txt that decides the origin (rules, or none):
//     it is applied to the origin and the host's spacing at once, and
//     written down with the next batch. Other results (errors, 429 and 5xx,
//     an unreachable robots.txt, redirects, sitemaps) keep the slot until
//     they are recorded, since they may make the host wait.
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

// commitJob is one batch handed to the committer.
type commitJob struct {
	batch   *storage.Batch
	gen     uint64        // its place in the order of batches, from 1
	events  []Event       // reported once it committed
	archive bool          // WARC records of its results must be synced first
	err     error         // the commit's outcome
	took    time.Duration // how long the commit took, WARC sync included (set by the committer)
	results int           // worker results it records
}

// committer commits batches in order until jobs is closed.
func (c *Crawler) committer(jobs <-chan *commitJob, done chan<- *commitJob) {
	for j := range jobs {
		c.commitJob(j)
		done <- j
	}
}

func (c *Crawler) commitJob(j *commitJob) {
	start := c.cfg.Now()
	defer func() { j.took = c.cfg.Now().Sub(start) }()
	if j.archive && c.cfg.Archive != nil {
		// The records of every result are on disk before any
		// transaction records it.
		if err := c.cfg.Archive.Sync(); err != nil {
			j.batch.Rollback()
			j.err = fmt.Errorf("record results: %w", err)
			return
		}
	}
	if err := j.batch.Commit(); err != nil {
		j.err = fmt.Errorf("record results: %w", err)
	}
}

// startCommitter runs the committer goroutine for the duration of Run.
func (c *Crawler) startCommitter() {
	c.commits = make(chan *commitJob)
	c.committed = make(chan *commitJob, 1)
	c.committerDone = make(chan struct{})
	go func() {
		defer close(c.committerDone)
		c.committer(c.commits, c.committed)
	}()
}

// stopCommitter waits for the batch being committed, if any, and ends the
// committer; later writes commit inline. A batch still open (after an
// error) is rolled back.
func (c *Crawler) stopCommitter() error {
	c.dropBatch()
	if c.commits == nil {
		return nil
	}
	err := c.waitCommit()
	close(c.commits)
	<-c.committerDone
	c.commits, c.committed = nil, nil
	return err
}

// committedCh is the channel the loop waits on for the batch being
// committed; nil (never ready) when the committer is idle.
func (c *Crawler) committedCh() <-chan *commitJob {
	if c.committing == nil {
		return nil
	}
	return c.committed
}

// update runs fn in a new batch, after recording every received result in
// it, and hands the batch to the committer. It waits only for the commit
// under way, if any. fn's error fails the whole batch: callers treat it as
// fatal (a storage failure) and stop the crawl. Events fn reports are
// delivered once the batch committed.
func (c *Crawler) update(fn func(tx *storage.Tx) error) error {
	if err := c.openBatch(); err != nil {
		return err
	}
	var err error
	if n := len(c.received); n > 0 {
		err = c.open.Do(func(tx *storage.Tx) error { return c.recordReceived(tx, n) })
		c.openResults += n
	}
	if err == nil && fn != nil {
		err = c.open.Do(fn)
	}
	if err != nil {
		c.dropBatch()
		return err
	}
	return c.handOver()
}

// openBatch makes sure a batch is open for writes, waiting for the commit
// under way if there is none yet.
func (c *Crawler) openBatch() error {
	if c.open != nil {
		return nil
	}
	if err := c.waitCommit(); err != nil {
		return err
	}
	b, err := c.db.Begin()
	if err != nil {
		return err
	}
	c.open, c.openResults, c.openedAt = b, 0, c.cfg.Now()
	c.events, c.batchArchive = nil, false
	return nil
}

// dropBatch rolls back the open batch, if any (a fatal error).
func (c *Crawler) dropBatch() {
	if c.open != nil {
		c.open.Rollback()
		c.open, c.events = nil, nil
	}
}

// recordChunk, batchMax, batchRatio and batchAgeMax shape the batches
// results are recorded in: the coordinator records recordChunk results at
// a time into the open batch, and between chunks takes in results and
// dispatches, so a long batch does not hold up hosts whose slots are free.
// The batch is handed over at batchMax results, or once nothing is left to
// record and it has been open batchRatio times as long as the last commit
// took (at most batchAgeMax).
//
// Why wait: a commit costs about the same whatever it holds (bbolt writes
// every page the batch touched, and most results of a busy crawl touch
// the same pages: each host's queue ends, its records, the counters),
// plus two fsyncs. Committing whenever the committer is idle made as many
// small commits as the disk allowed, and they ate a third of the CPU the
// fetches needed (measured: 542 commits of 37 results, 4,845 pages/s;
// with the ratio, 75 of 270 and 7,800 pages/s). The ratio keeps the
// committer busy at most a quarter of the time, and ties the wait to the
// disk: where a commit is one fsync of a few results (a polite crawl), a
// batch stays open a few milliseconds. Results are still reported only
// once committed; what a crash loses is what was fetched in the last
// batch's window, fetched again after the restart.
const (
	recordChunk = 16
	batchMax    = 1024
	batchRatio  = 3
	batchAgeMax = 50 * time.Millisecond
)

// batchDue reports whether the open batch has been open long enough to
// hand over (see batchRatio).
func (c *Crawler) batchDue() bool {
	return c.open != nil && !c.cfg.Now().Before(c.batchDueAt())
}

// batchDueAt is when the open batch is due.
func (c *Crawler) batchDueAt() time.Time { return c.openedAt.Add(batchWait(c.lastCommit)) }

// batchWait is how long a batch stays open after a commit that took
// lastCommit.
func batchWait(lastCommit time.Duration) time.Duration {
	return min(batchRatio*max(lastCommit, 0), batchAgeMax)
}

// recordSome records the next chunk of received results into the open
// batch (opening one), and hands the batch over when they are all in.
func (c *Crawler) recordSome() error {
	if err := c.openBatch(); err != nil {
		return err
	}
	if len(c.received) == 0 {
		return c.handOver()
	}
	n := min(recordChunk, len(c.received))
	if err := c.open.Do(func(tx *storage.Tx) error { return c.recordReceived(tx, n) }); err != nil {
		c.dropBatch()
		return err
	}
	c.openResults += n
	if c.openResults >= batchMax || (len(c.received) == 0 && c.batchDue()) {
		return c.handOver()
	}
	return nil
}

// updateAlone runs fn in a batch of its own and waits for its commit: for
// callers whose error must not cost other results (control calls).
func (c *Crawler) updateAlone(fn func(tx *storage.Tx) error) error {
	if err := c.flush(); err != nil {
		return err
	}
	if err := c.update(fn); err != nil {
		return err
	}
	return c.waitCommit()
}

// flush records every received result and waits until all is committed.
func (c *Crawler) flush() error {
	if len(c.received) > 0 || c.open != nil {
		if err := c.update(nil); err != nil {
			return err
		}
	}
	return c.waitCommit()
}

// handOver passes the batch just built to the committer, or commits it
// here when no committer runs (before and after Run).
func (c *Crawler) handOver() error {
	c.gen++
	c.handOverDecided(c.open, c.events)
	j := &commitJob{batch: c.open, gen: c.gen, events: c.events, archive: c.batchArchive, results: c.openResults}
	c.open, c.events, c.batchArchive = nil, nil, false
	if c.commits == nil {
		c.commitJob(j)
		return c.finishCommit(j)
	}
	c.committing = j
	c.commits <- j
	return nil
}

// waitCommit waits for the batch under way, if any, and completes it.
func (c *Crawler) waitCommit() error {
	if c.committing == nil {
		return nil
	}
	return c.finishCommit(<-c.committed)
}

// finishCommit completes a committed batch: its events are reported, and
// hosts whose next URLs it made visible get their turn.
func (c *Crawler) finishCommit(j *commitJob) error {
	c.committing = nil
	if j.err != nil {
		return j.err
	}
	c.lastCommit = j.took
	c.cfg.Metrics.committed(j.took, j.results)
	c.sched.Committed(j.gen, c.cfg.Now())
	if c.cfg.Observe != nil {
		for _, e := range j.events {
			c.cfg.Observe(e)
		}
	}
	return nil
}

func (c *Crawler) event(e Event) {
	if c.cfg.Observe != nil || c.cfg.Node != nil {
		c.events = append(c.events, e)
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
	if !r.sent.IsZero() && c.flying[r.task.host] == r.task.claim && c.sched.WantsSent(r.task.host) {
		// The result came before its sent note (or the note never
		// came): the IP group need not wait for the result's record.
		c.sched.Sent(r.task.host, r.sent, c.cfg.Now())
	}
	delete(c.flying, r.task.host)
	if bigPage(r) {
		c.startPending(r)
		return nil
	}
	switch {
	case releasable(r):
		c.release(&r)
	case c.robotsReleasable(r):
		c.applyRobots(r, c.cfg.Now())
		c.release(&r)
	}
	c.received = append(c.received, r)
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

// release ends r's request in the schedule: its start counts for the
// host's (and IP group's) spacing from when it was written, and the slot
// is open for the next URL.
func (c *Crawler) release(r *result) {
	now := c.cfg.Now()
	host := r.task.host
	if !r.sent.IsZero() {
		c.sched.Started(host, r.sent)
	}
	c.sched.Done(host, now)
	if r.ip != "" {
		c.sched.SetGroup(host, r.ip, now)
	}
	r.released = true
	c.setWork(host, c.host(host))
}

// recordReceived records the first n received results, in the order
// they came.
func (c *Crawler) recordReceived(tx *storage.Tx, n int) error {
	for _, r := range c.received[:n] {
		if err := c.record(tx, r); err != nil {
			return err
		}
		c.receivedSize -= resultSize(r)
	}
	clear(c.received[:n])
	if n == len(c.received) {
		c.received = c.received[:0]
	} else {
		c.received = c.received[n:]
	}
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
		for _, u := range r.links.urls {
			n += len(u) + 16
		}
		for _, b := range r.links.bad {
			n += len(b.url) + len(b.reason) + 32
		}
	}
	if r.robots != nil {
		n += 2 * len(r.robots.Body)
	}
	for _, e := range r.entries {
		n += len(e.URL) + 64
	}
	return n
}
