package crawler

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

func originOf(url string) string { return urlnorm.Origin(url) }

// dispatch hands tasks to idle workers while hosts have open slots. It
// returns how long until the next slot opens (-1: no host has work).
func (c *Crawler) dispatch(tasks chan<- task) (time.Duration, error) {
	// Results not recorded yet count too: they wait in memory while a
	// commit is under way (several milliseconds: see groupcommit.Ratio), so up
	// to a batch of them, and receivedMax bytes, may wait; past that, a
	// slow disk slows the crawl instead of filling memory. Tasks
	// CancelHosts took back count until a worker skips them (see cuts):
	// they still take room in the tasks channel.
	for c.inflight+c.cuts.Waiting() < c.cfg.Workers+aheadOf(c.cfg.Workers) && c.received.Len() < groupcommit.MaxResults && c.receivedSize < receivedMax {
		now := c.cfg.Now()
		cl, wait, ok := c.front.Claim(now)
		c.cfg.Metrics.Waited(c.front.TakeWaited())
		if !ok {
			return wait, nil
		}
		t, send, err := c.prepare(cl.Host, now)
		if err != nil {
			return 0, err
		}
		if send {
			t.claim, t.notifySent = cl.ID, cl.NotifySent
			t.addr = fetch.Address{Host: cl.Host, IP: cl.IP, Others: cl.OtherIPs, Err: cl.LookupErr}
			t.keepBody = c.front.StoreBodies(t.host, c.cfg.StoreBodies)
			t.noWARC = !c.front.Archives(t.host, true)
			// Registered here, not when a worker starts it: a task may
			// wait for a worker, and CancelHosts must reach it there.
			c.work.cancellable(c.fetchCtx, &t)
			c.inflight++
			if t.kind == taskPage {
				c.front.Take(t.host, t.seq)
			}
			tasks <- t
		}
	}
	return -1, nil
}

// aheadOf is how many tasks may wait for a worker on top of workers busy
// ones: a quarter as many. A worker done with one task takes the next at
// once instead of waiting for the coordinator to take its result and
// dispatch again (two goroutine hand-offs: measured 0.3 ms to wake a
// worker plus the coordinator's turn, on a host cycle of about 6 ms in
// the 50-host benchmark; with tasks waiting, 8,100 -> 9,100 pages/s).
// Waiting tasks hold their hosts' slots, so a host still has at most one
// request at a time; the delay counts from when a request is written,
// so a task that waited only goes later. At most workers requests run at
// once.
func aheadOf(workers int) int { return max(1, workers/4) }

// receivedMax bounds the memory held by results waiting to be recorded
// (see resultSize): at most this, plus one result per worker.
const receivedMax = 64 << 20

// prepare decides what to do with a claimed host slot. In order: a
// robots.txt redirect hop; robots.txt itself when the next URL's origin
// has no usable outcome; the next sitemap file; with a declared purpose,
// the origin's tdmrep.json when not asked for yet; the head of the queue. A
// next URL that cannot be fetched (robots.txt disallows it, or gave up) is
// settled without a request and the slot handed back.
func (c *Crawler) prepare(host string, now time.Time) (task, bool, error) {
	if c.node.fence(host, now) {
		return task{}, false, nil
	}
	if hop, ok := c.front.NextHop(host); ok {
		return hop, true, nil
	}
	t, ok, err := c.next(host)
	if err != nil {
		return task{}, false, err
	}
	if !ok {
		var committing uint64
		if j := c.commits.Committing(); c.commits.Batch() == nil && j != nil {
			// Its next URLs may be in the batch being committed.
			committing = j.Gen
		}
		c.front.Idle(host, committing, now)
		return task{}, false, nil
	}
	if c.cfg.Node != nil && t.kind == taskPage && !c.cfg.Node.Holds(t.url) {
		return task{}, false, c.released(t, now)
	}
	if t.kind == taskPage {
		// Admitted under the rules of its day: a reload may exclude it now.
		if reason, out := c.front.OutOfScope(t.url); out {
			return task{}, false, c.settle(t, storage.Skipped, reason, now)
		}
	}
	origin := originOf(t.url)
	act, o := c.robots.Next(origin, now)
	switch act {
	case robotscache.Fail:
		return task{}, false, c.settle(t, storage.Failed, gaveUpReason(o), now)
	case robotscache.Hold:
		// Unreachable robots.txt: the whole host waits for the retry.
		c.front.Cancel(host, now)
		c.front.Hold(host, o.RetryAt(), now)
		return task{}, false, nil
	case robotscache.Wait:
		// Its robots.txt is being fetched through a redirect elsewhere:
		// park the host until the outcome is known.
		c.front.Pause(host, now)
		return task{}, false, nil
	case robotscache.FetchFirst:
		return task{kind: taskRobots, host: host, url: origin + "/robots.txt", origin: origin}, true, nil
	}
	if t.kind == taskPage && c.rules.sites != nil && c.rules.mayAskTDMRep(o, t.url) && c.rules.sites.Ask(origin, now) {
		// Its origin's tdmrep.json first, on this slot as robots.txt is
		// (the page stays at the head of the queue for the next one).
		return task{kind: taskTDMRep, host: host, url: origin + tdmRepPath, origin: origin}, true, nil
	}
	if t.kind == taskPage {
		if v := c.rules.refusePage(o, t.url); v.State != "" {
			return task{}, false, c.settleDisallowed(t, o, v, now)
		}
		t.useSite = c.rules.siteUse(o, t.url)
		return t, true, nil
	}
	if reason, allowed := c.rules.disallowed(o, t.url); !allowed {
		return task{}, false, c.settle(t, storage.Disallowed, reason, now)
	}
	return t, true, nil
}

// settleRunMax bounds how many disallowed queue heads one transaction
// records.
const settleRunMax = 1000

// settleDisallowed records the disallowed head URL and every following
// head of the same origin that the rules also disallow, in one
// transaction: URLs queued before their host's robots.txt was known are
// mostly settled here, and one commit each would stall the crawl.
func (c *Crawler) settleDisallowed(t task, o *robotscache.Origin, v frontier.Verdict, now time.Time) error {
	origin := originOf(t.url)
	n := 0
	err := c.update(func(tx *storage.Tx) error {
		e := frontier.QueueEntry{URL: t.url, Seq: t.seq}
		for {
			if err := c.urls.recordRefused(tx, task{kind: taskPage, host: t.host, url: e.URL, seq: e.Seq}, v, now); err != nil {
				return err
			}
			n++
			var ok bool
			e, ok = c.front.HeadAfterCursor(tx, t.host)
			if !ok || n >= settleRunMax || originOf(e.URL) != origin {
				return nil
			}
			if v = c.rules.refusePage(o, e.URL); v.State == "" {
				return nil
			}
		}
	})
	if err != nil {
		return err
	}
	c.front.Cancel(t.host, now)
	c.log.Info("not fetched: disallowed by robots.txt", "host", t.host, "urls", n)
	return nil
}

// next is the host's next sitemap file, else the first URL of its queue
// after those taken already. It reads the last committed state: URLs
// taken since are still there (hence the cursor), and URLs queued in the
// batch being committed are not yet (ok is false while only such remain).
func (c *Crawler) next(host string) (task, bool, error) {
	if url, ok := c.front.NextSitemap(host); ok {
		return task{kind: taskSitemap, host: host, url: url}, true, nil
	}
	if h := c.front.Lookup(host); h == nil || !h.HasQueued() {
		return task{}, false, nil
	}
	t := task{kind: taskPage, host: host}
	head, ok := c.front.Head(host)
	if ok && c.cfg.Recrawl <= 0 {
		t.url, t.seq = head.URL, head.Seq
		return t, true, nil
	}
	if !ok && c.commits.Batch() == nil && c.front.Unreadable(host) {
		// Its next URLs are in a batch being committed: they cannot be
		// read before it lands.
		return task{}, false, nil
	}
	read := c.db.View
	if b := c.commits.Batch(); b != nil {
		// The batch being built holds everything recorded.
		read = b.Do
	}
	err := read(func(tx *storage.Tx) error {
		head, ok = c.front.LoadAhead(tx, host)
		if ok {
			t.url, t.seq = head.URL, head.Seq
		}
		if ok && c.cfg.Recrawl > 0 {
			// A recheck of a fetched page is a conditional GET with the
			// validators it sent, verbatim.
			if rec, _ := tx.GetURL(t.url); rec != nil && rec.State == storage.Fetched && revalidates(tx, &c.cfg, c.front, host, rec) {
				t.etag, t.lastMod, t.fetchedAt, t.payload = rec.ETag, rec.LastModified, rec.FetchedAt, rec.PayloadDigest
			}
		}
		return nil
	})
	if err != nil {
		return task{}, false, fmt.Errorf("read %s's queue: %w", host, err)
	}
	return t, ok, nil
}

// settle records the next URL without fetching it and returns the unused
// slot.
func (c *Crawler) settle(t task, state storage.State, reason string, now time.Time) error {
	err := c.update(func(tx *storage.Tx) error {
		if t.kind == taskSitemap {
			c.urls.event(Event{URL: t.url, State: "sitemap " + string(state), Reason: reason})
			return c.front.SettleSitemap(tx, t.host, t.url, string(state), reason, now)
		}
		return c.urls.recordUnfetched(tx, t, state, reason, now)
	})
	if err != nil {
		return err
	}
	c.front.Cancel(t.host, now)
	c.log.Info("not fetched", "url", t.url, "state", string(state), "reason", reason)
	return nil
}

// recordUnfetched records a queue head that will not be fetched and takes
// it off the queue.
func (c *urlWriter) recordUnfetched(tx *storage.Tx, t task, state storage.State, reason string, now time.Time) error {
	return c.recordRefused(tx, t, frontier.Verdict{State: state, Reason: reason}, now)
}

// recordRefused is recordUnfetched for a queue head its site refuses (see
// siteRules.refusePage): its record keeps the refusing signals.
func (c *urlWriter) recordRefused(tx *storage.Tx, t task, v frontier.Verdict, now time.Time) error {
	c.event(Event{URL: t.url, State: string(v.State), Reason: v.Reason})
	return c.front.SettleRefused(tx, t.host, t.seq, t.url, v, now)
}
