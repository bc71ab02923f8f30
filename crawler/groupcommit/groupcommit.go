// Package groupcommit writes a crawl's results to the state file as a
// pipeline of batches (group commit): one batch is open for writes on its
// owner's goroutine while the one before it is committed, with its fsyncs,
// on a committer goroutine of its own. A host's next request then never
// waits for the commit of its previous result, and the more results come
// back during a commit, the more the next one records for the same cost.
//
// A Pipeline belongs to one goroutine (the crawl's coordinator): every
// method is called from it, and the committer only ever sees a batch handed
// over. bbolt allows one write transaction at a time, so the next batch
// opens only once the commit under way is done: Open waits for it.
package groupcommit

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// MaxResults, Ratio and AgeMax shape the batches. A batch is handed over
// at MaxResults results, or once its owner has nothing left to record and
// it has been open Ratio times as long as the last commit took (at most
// AgeMax).
//
// Why wait: a commit costs about the same whatever it holds (bbolt writes
// every page the batch touched, and most results of a busy crawl touch the
// same pages: each host's queue ends, its records, the counters), plus two
// fsyncs. Committing whenever the committer was idle made as many small
// commits as the disk allowed, and they ate a third of the CPU the fetches
// needed (measured: 542 commits of 37 results, 4,845 pages/s; with the
// ratio, 75 of 270 and 7,800 pages/s). The ratio keeps the committer busy
// at most a seventh of the time, and ties the wait to the disk: where a
// commit is one fsync of a few results (a polite crawl), a batch stays open
// a few tens of milliseconds. Ratio 6 and 100 ms rather than 3 and 50 ms:
// each leaf page a batch touches is read into memory and written once
// however many results share it, so twice the results per commit cost
// less per page (BenchmarkCrawlSlowServers, 3 interleaved runs each: 284
// -> 268 us of CPU per page median, 280 -> 610 pages per commit). Results are still reported only once committed; what
// a crash loses is what was fetched in the last batch's window, fetched
// again after the restart.
const (
	MaxResults = 1024
	Ratio      = 6
	AgeMax     = 100 * time.Millisecond
)

// Wait is how long a batch stays open after a commit that took last.
func Wait(last time.Duration) time.Duration {
	return min(Ratio*max(last, 0), AgeMax)
}

// Job is one batch handed over, as its owner sees it once committed.
type Job[E any] struct {
	Gen     uint64        // its place in the order of batches, from 1
	Events  []E           // what its owner noted in it, to report now
	Results int           // results it recorded
	Took    time.Duration // how long the commit took, the sync before it included
	Err     error         // the commit's outcome

	batch *storage.Batch
	sync  bool
}

// Options are a Pipeline's hooks.
type Options[E any] struct {
	// Now is the clock batches are timed by.
	Now func() time.Time
	// Sync is called before the commit of a batch marked with SyncFirst:
	// what it records must be on disk elsewhere first (WARC files).
	Sync func() error
	// Committed is called, on the owner's goroutine and in order, for
	// each batch committed without error; its error is returned by the
	// call that completed the batch.
	Committed func(*Job[E]) error
}

// Pipeline is the batch being built and the one being committed.
type Pipeline[E any] struct {
	db   *storage.DB
	opts Options[E]

	open     *storage.Batch // being built; nil when none
	openedAt time.Time
	results  int
	events   []E
	sync     bool

	gen        uint64        // batches handed over so far
	last       time.Duration // how long the last commit took
	committing *Job[E]       // being committed; nil when idle
	jobs       chan *Job[E]  // to the committer; nil when none runs
	done       chan *Job[E]
	stopped    chan struct{}
}

// New returns a pipeline writing to db. Until Start, and after Stop,
// batches are committed where they are handed over.
func New[E any](db *storage.DB, opts Options[E]) *Pipeline[E] {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Pipeline[E]{db: db, opts: opts}
}

// Start runs the committer goroutine.
func (p *Pipeline[E]) Start() {
	p.jobs = make(chan *Job[E])
	p.done = make(chan *Job[E], 1)
	p.stopped = make(chan struct{})
	go func() {
		defer close(p.stopped)
		for j := range p.jobs {
			p.commit(j)
			p.done <- j
		}
	}()
}

// Stop rolls back the batch being built, if any (its owner stops on an
// error), completes the commit under way and ends the committer.
func (p *Pipeline[E]) Stop() error {
	p.Drop()
	if p.jobs == nil {
		return nil
	}
	err := p.WaitCommit()
	close(p.jobs)
	<-p.stopped
	p.jobs, p.done = nil, nil
	return err
}

// Running reports whether the committer runs (batches are committed
// behind their owner's back).
func (p *Pipeline[E]) Running() bool { return p.jobs != nil }

func (p *Pipeline[E]) commit(j *Job[E]) {
	start := p.opts.Now()
	defer func() { j.Took = p.opts.Now().Sub(start) }()
	if j.sync && p.opts.Sync != nil {
		if err := p.opts.Sync(); err != nil {
			j.batch.Rollback()
			j.Err = fmt.Errorf("record results: %w", err)
			return
		}
	}
	if err := j.batch.Commit(); err != nil {
		j.Err = fmt.Errorf("record results: %w", err)
	}
}

// Open makes sure a batch is open for writes and returns it, completing
// the commit under way first when none is.
func (p *Pipeline[E]) Open() (*storage.Batch, error) {
	if p.open != nil {
		return p.open, nil
	}
	if err := p.WaitCommit(); err != nil {
		return nil, err
	}
	b, err := p.db.Begin()
	if err != nil {
		return nil, err
	}
	// Events noted with no batch open (their writes committed on their
	// own, outside the pipeline) stay: they are reported with this one.
	p.open, p.results, p.openedAt = b, 0, p.opts.Now()
	p.sync = false
	return b, nil
}

// Batch is the batch being built, nil when none is.
func (p *Pipeline[E]) Batch() *storage.Batch { return p.open }

// Drop rolls back the batch being built, if any (a fatal error).
func (p *Pipeline[E]) Drop() {
	if p.open != nil {
		p.open.Rollback()
		p.open, p.events = nil, nil
	}
}

// Recorded counts n results recorded in the open batch.
func (p *Pipeline[E]) Recorded(n int) { p.results += n }

// Full reports whether the open batch holds MaxResults results.
func (p *Pipeline[E]) Full() bool { return p.results >= MaxResults }

// Note keeps e with the open batch, for Committed; with none open, with
// the next one (for a write committed outside the pipeline).
func (p *Pipeline[E]) Note(e E) { p.events = append(p.events, e) }

// Noted is what was noted in the open batch so far.
func (p *Pipeline[E]) Noted() []E { return p.events }

// SyncFirst marks the open batch: Options.Sync runs before its commit.
func (p *Pipeline[E]) SyncFirst() { p.sync = true }

// Due reports whether the open batch has been open long enough to hand
// over (see Ratio).
func (p *Pipeline[E]) Due() bool { return p.open != nil && !p.opts.Now().Before(p.DueAt()) }

// DueAt is when the open batch is due.
func (p *Pipeline[E]) DueAt() time.Time { return p.openedAt.Add(Wait(p.last)) }

// Gen is how many batches were handed over: the open batch will be Gen()+1.
func (p *Pipeline[E]) Gen() uint64 { return p.gen }

// HandOver passes the open batch to the committer, or commits it here
// (with Committed) when none runs.
func (p *Pipeline[E]) HandOver() error {
	p.gen++
	j := &Job[E]{Gen: p.gen, Events: p.events, Results: p.results, batch: p.open, sync: p.sync}
	p.open, p.events, p.sync = nil, nil, false
	if p.jobs == nil {
		p.commit(j)
		return p.Finish(j)
	}
	p.committing = j
	p.jobs <- j
	return nil
}

// Committing is the batch being committed, nil when the committer is idle.
// Its Events and Gen may be read; the rest is the committer's.
func (p *Pipeline[E]) Committing() *Job[E] { return p.committing }

// Done delivers the batch being committed once it is; nil (never ready)
// when the committer is idle. Pass what it delivers to Finish.
func (p *Pipeline[E]) Done() <-chan *Job[E] {
	if p.committing == nil {
		return nil
	}
	return p.done
}

// WaitCommit waits for the batch being committed, if any, and finishes it.
func (p *Pipeline[E]) WaitCommit() error {
	if p.committing == nil {
		return nil
	}
	return p.Finish(<-p.done)
}

// Finish completes a committed batch: its error, else Options.Committed's.
func (p *Pipeline[E]) Finish(j *Job[E]) error {
	p.committing = nil
	if j.Err != nil {
		return j.Err
	}
	p.last = j.Took
	if p.opts.Committed != nil {
		return p.opts.Committed(j)
	}
	return nil
}
