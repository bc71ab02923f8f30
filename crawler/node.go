package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler/cuts"
	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// Node makes a crawl one node of a cluster (crawler/cluster implements it).
// The crawl then admits no URL on its own: every URL it discovers in scope
// goes to Divert, which hands it to the node owning its host; URLs come in
// through Admit. It fetches only hosts that Serves allows (their shard is
// leased to this node) and only queued URLs that Holds confirms (this node
// holds the URL's undecided message), so that a URL queued here under an
// earlier ownership of its shard, and decided elsewhere since, is dropped
// rather than fetched twice.
//
// The methods are called on the coordinator goroutine and must not block.
type Node interface {
	Divert(c frontier.Candidate)
	Serves(host string) bool
	Holds(url string) bool
	// Robots is told each robots.txt file the crawl read (parsed, or
	// unavailable: allow all), for the next owner of the origin's shard.
	Robots(origin string, r *storage.RobotsRecord)
	// Decided is told each outcome (as Config.Observe is, retries and
	// releases included) with the URL's record, once the batch that
	// records it is complete and handed to be committed: the node hands
	// the outcome on while the commit runs. Should the commit fail, the
	// crawl stops with that error.
	Decided(e Event, rec *storage.URLRecord)
	// Fetched is told a held page's outcome as its worker's result comes
	// back, before it is recorded: the record it gets and the URLs it
	// found in the crawl's scope (what Divert gets when it is recorded).
	// The node can hand them over at once, so that a kill of this process
	// costs only its requests in flight, not the outcomes waiting for a
	// commit. Only a first fetch that its response decides comes here (no
	// error, 429 or 5xx, no recheck, no link-heavy page); Decided and
	// Divert are told every outcome as before, these included.
	Fetched(rec *storage.URLRecord, found []frontier.Candidate)
}

// NodeEngine is the crawl as its cluster node drives it (cluster.Engine):
// it admits the URLs handed to this node, serves and holds hosts as their
// shards come and go, takes robots.txt files with a shard, and cuts the
// requests to a shard that left. It also owns what the crawl tells its
// Node (a held page's outcome early, each batch's outcomes) and which
// hosts it must not serve (fence). Its calls run on the coordinator (co).
type NodeEngine struct {
	cfg     *Config
	db      *storage.DB
	front   *frontier.Frontier[task]
	robots  *robotscache.Cache
	commits *groupcommit.Pipeline[Event]
	urls    *urlWriter
	cuts    *cuts.Registry[task]
	co      coordinator
	origins *robotsOutcomes // hostRules: the pace an imported file sets
}

// coordinator is what NodeEngine needs of the crawl's coordinator: to run
// a call on it, to record in its batches, to stop the crawl on a storage
// failure, and to count its results not yet committed.
type coordinator interface {
	do(ctx context.Context, fn func()) error
	update(fn func(tx *storage.Tx) error) error
	updateAlone(fn func(tx *storage.Tx) error) error
	fail(err error)
	uncommitted(match func(host string) bool) int
}

// Engine is the crawl's side of its cluster node (see NodeEngine).
func (c *Crawler) Engine() *NodeEngine { return c.node }

// fail stops the crawl with err: a storage failure in a control call.
func (c *Crawler) fail(err error) { c.fatal = err }

// uncommitted counts the results for hosts match selects that came back
// and are not committed and reported yet: waiting to be recorded, pending
// (links being admitted), or in the batches built or being committed.
func (c *Crawler) uncommitted(match func(host string) bool) int {
	n := 0
	for i := range c.received.Len() {
		if match(c.received.At(i).task.host) {
			n++
		}
	}
	for _, p := range c.pending {
		if match(p.r.task.host) {
			n++
		}
	}
	uncommitted := c.commits.Noted()
	if j := c.commits.Committing(); j != nil {
		uncommitted = append(uncommitted[:len(uncommitted):len(uncommitted)], j.Events...)
	}
	for _, e := range uncommitted {
		if match(urlnorm.Authority(e.URL)) {
			n++
		}
	}
	return n
}

// handOverEarly tells the node a held page's outcome from its worker's
// result, before it is recorded (see Node.Fetched). A URL whose record
// cannot be read yet (queued in the batch being committed) is told with
// its batch only.
func (c *NodeEngine) handOverEarly(r *result) {
	if c.cfg.Node == nil || r.task.kind != taskPage || r.interrupted || !releasable(*r) || bigPage(*r) ||
		r.page.Status == http.StatusNotModified || !c.cfg.Node.Holds(r.task.url) {
		return
	}
	c.tellFetched(*r)
}

// tellFetched is handOverEarly for a page it applies to. (A function of
// its own: the closure below makes its result escape to the heap, a copy
// per result that a crawl outside a cluster need not pay.)
func (c *NodeEngine) tellFetched(r result) {
	var rec *storage.URLRecord
	read := c.db.View
	if b := c.commits.Batch(); b != nil {
		read = b.Do // it holds everything recorded
	}
	_ = read(func(tx *storage.Tx) error {
		rec, _ = tx.GetURL(r.task.url) // an error must not spoil the batch: told with it instead
		return nil
	})
	if rec == nil || rec.State != storage.Queued {
		return
	}
	if !r.sent.IsZero() {
		r.started = r.sent // as record does
	}
	var in []frontier.Candidate
	for _, f := range c.urls.fetchedRecord(rec, r) {
		if c.front.InScope(f.URL) {
			in = append(in, f)
		}
	}
	rec.State = storage.Fetched
	c.cfg.Node.Fetched(rec, in)
}

// handOverDecided tells the node the outcomes of the batch being handed
// to the committer, with their records as the batch holds them.
func (c *NodeEngine) handOverDecided(b *storage.Batch, events []Event) {
	if c.cfg.Node == nil || b == nil {
		return
	}
	_ = b.Do(func(tx *storage.Tx) error {
		for _, e := range events {
			rec, _ := tx.GetURL(e.URL)
			c.cfg.Node.Decided(e, rec)
		}
		return nil
	})
}

// ReleasedReason is the Error of a URL record that a node dropped from its
// queue because it no longer holds the URL (see Node). Admit queues such a
// URL again when it comes back.
const ReleasedReason = "cluster: handled by another node"

// Admission is what Admit made of one URL.
type Admission struct {
	URL string
	// Queued: the URL is in this node's queue (newly, or already).
	Queued bool
	// Record is the URL's decided record when it was decided before, here,
	// or was refused at admission (skipped by a limit). Nil when Queued, or
	// when the URL is outside the scope (Scope false).
	Record *storage.URLRecord
	// OutOfScope: the URL is outside this crawl's host scope; nothing was
	// recorded.
	OutOfScope bool
}

// Admit admits URLs that the cluster hands to this node. A URL seen before
// is reported as it stands (queued, or its decided record); one dropped
// when its shard moved away (ReleasedReason) is queued again.
func (c *NodeEngine) Admit(ctx context.Context, cands []frontier.Candidate) ([]Admission, error) {
	var out []Admission
	var err error
	if e := c.co.do(ctx, func() { out, err = c.admitList(cands) }); e != nil {
		return nil, e
	}
	return out, err
}

// admitList admits a handed-off batch in the batch being built, as the
// crawl's own results are (group commit): the node keeps each queued URL's
// message until the URL is decided, so a crash before the commit loses
// nothing, and the coordinator need not wait for a commit of its own. Its
// error is a storage failure that cost the batch: it stops the crawl.
func (c *NodeEngine) admitList(cands []frontier.Candidate) ([]Admission, error) {
	out := make([]Admission, 0, len(cands))
	err := c.co.update(func(tx *storage.Tx) error {
		out = out[:0]
		for _, cand := range cands {
			a, err := c.admitOne(tx, cand)
			if err != nil {
				return err
			}
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		// A storage failure: the batch it shared with the crawl's own
		// results is dropped, so the crawl stops, as on any failure to
		// record (the next start resumes as after a crash).
		c.co.fail(fmt.Errorf("admit URLs handed to this node: %w", err))
	}
	return out, err
}

func (c *NodeEngine) admitOne(tx *storage.Tx, cand frontier.Candidate) (Admission, error) {
	h, err := c.front.AdmitHandedOff(tx, cand, ReleasedReason, c.cfg.Now())
	if a := h.Admission; a.Refused {
		c.urls.event(Event{URL: cand.URL, State: string(a.State), Reason: a.Reason})
	}
	return Admission{URL: cand.URL, Queued: h.Queued, Record: h.Record, OutOfScope: h.OutOfScope}, err
}

// Serve lets the crawl serve again the hosts that Node.Serves refused
// before (their shard came back). Each waits at least hold from now before
// its next request: the previous owner's requests may be that recent.
func (c *NodeEngine) Serve(ctx context.Context, hold func(host string) time.Duration) error {
	return c.co.do(ctx, func() { c.front.Unfence(c.cfg.Node.Serves, hold, c.cfg.Now()) })
}

// HoldHosts keeps every listed host from a request before the given time
// (the previous owner of their shard may have made one that recently).
func (c *NodeEngine) HoldHosts(ctx context.Context, until map[string]time.Time) error {
	return c.co.do(ctx, func() {
		now := c.cfg.Now()
		for host, t := range until {
			c.front.Hold(host, t, now)
		}
	})
}

// Learn gives the crawl what a shard's previous owner learnt of each
// host's server (the time to first byte and error delay of the records it
// wrote), so that their delays continue from it instead of the floor, and
// each host's last answer's status, which status shows until it answers
// here.
func (c *NodeEngine) Learn(ctx context.Context, learnt map[string]storage.HostRecord) error {
	return c.co.do(ctx, func() {
		now := c.cfg.Now()
		for host, r := range learnt {
			c.front.Learn(host, r, now)
		}
	})
}

// HostRecords returns the timing of every host that match selects: what a
// node hands over with a shard.
func (c *NodeEngine) HostRecords(ctx context.Context, match func(host string) bool) (map[string]storage.HostRecord, error) {
	out := map[string]storage.HostRecord{}
	err := c.co.do(ctx, func() {
		c.front.Hosts(func(host string) {
			if match(host) {
				out[host] = c.front.Record(host)
			}
		})
	})
	return out, err
}

// InFlight reports how many requests to hosts that match selects are in
// flight now or have outcomes not yet committed and reported (to Observe).
func (c *NodeEngine) InFlight(ctx context.Context, match func(host string) bool) (int, error) {
	n := 0
	err := c.co.do(ctx, func() {
		c.front.Busy(func(host string) {
			if match(host) {
				n++
			}
		})
		n += c.co.uncommitted(match)
	})
	if errors.Is(err, ErrNotRunning) {
		return 0, nil
	}
	return n, err
}

// fence reports whether a node's crawl must not serve host now; the host
// is then out of the schedule until Serve.
func (c *NodeEngine) fence(host string, now time.Time) bool {
	if c.cfg.Node == nil || c.cfg.Node.Serves(host) {
		return false
	}
	c.front.Fence(host, now)
	return true
}

// released records a queue head this node no longer holds (see Node) as
// handled elsewhere, without a request.
func (c *Crawler) released(t task, now time.Time) error {
	if err := c.settle(t, storage.Skipped, ReleasedReason, now); err != nil {
		return fmt.Errorf("release %s: %w", t.url, err)
	}
	return nil
}

// ImportRobots takes robots.txt records read by the previous owner of a
// shard, so that this node need not fetch them again. A record replaces
// what this node knows of an origin only when it is newer, usable, and no
// fetch of that robots.txt is under way here; the origin's host is then
// spaced as after any robots.txt result (see hostRules): by the slowest
// of its origins, the last good copy standing in for an unreachable file.
func (c *NodeEngine) ImportRobots(ctx context.Context, recs map[string]*storage.RobotsRecord) error {
	var err error
	if e := c.co.do(ctx, func() { err = c.importRobots(recs) }); e != nil {
		return e
	}
	return err
}

// importRobots is ImportRobots on the coordinator. The sitemaps an
// imported file names are declared again: what the previous owner read of
// them may not have reached the cluster before it died (sitemaps read here
// before are not read again).
func (c *NodeEngine) importRobots(recs map[string]*storage.RobotsRecord) error {
	var imported []string
	now := c.cfg.Now()
	for origin, r := range recs {
		if _, ok := c.robots.Import(origin, r, now); !ok {
			continue
		}
		// The import is one of the host's origins: hostRules has rules.
		host := urlnorm.Authority(origin)
		c.front.ApplyRobots(host, c.origins.hostRules(host, now), c.cfg.Agent, now)
		imported = append(imported, origin)
	}
	if len(imported) == 0 {
		return nil
	}
	// Written to the state file too, as a fetched one is: status reads
	// them there, and a restart starts from them.
	return c.co.updateAlone(func(tx *storage.Tx) error {
		for _, origin := range imported {
			if err := tx.PutRobots(origin, recs[origin]); err != nil {
				return err
			}
			if err := c.front.DeclareSitemaps(tx, origin, c.robots.Lookup(origin).Rules(), now); err != nil {
				return err
			}
		}
		return nil
	})
}

// cancellable gives a task being dispatched the context of its request
// and, on a cluster node, registers it so that CancelHosts can cut it
// (see cuts).
func (c *pool) cancellable(fetchCtx context.Context, t *task) {
	if c.cfg.Node == nil {
		t.ctx, t.stop = fetchCtx, notCut
		return
	}
	t.ctx, t.stop, t.begin = c.cuts.Register(t.host, fetchCtx, *t)
}

// CancelHosts cuts short the requests under way to the hosts match
// selects (their shard has gone to another node: the new owner must not
// find them still running), and takes back those still waiting for a
// worker (see cuts). Their URLs stay queued; each counts as a request
// made. It does not block: it may be called from any goroutine.
func (c *NodeEngine) CancelHosts(match func(host string) bool) int { return c.cuts.Cut(match) }
