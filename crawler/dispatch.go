package crawler

import (
	"time"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

func originOf(url string) string { return urlnorm.Origin(url) }

// dispatch hands tasks to idle workers while hosts have open slots. It
// returns how long until the next slot opens (-1: no host has work).
func (c *Crawler) dispatch(tasks chan<- task) (time.Duration, error) {
	for c.inflight < c.cfg.Workers {
		now := c.cfg.Now()
		host, wait, ok := c.sched.Next(now)
		if !ok {
			return wait, nil
		}
		t, send, err := c.prepare(host, now)
		if err != nil {
			return 0, err
		}
		if send {
			c.inflight++
			tasks <- t
		}
	}
	return -1, nil
}

// prepare decides what to do with a claimed host slot: fetch robots.txt,
// fetch the head URL, or (handing the slot back) record a head URL that
// robots.txt disallows, or wait for a robots.txt retry.
func (c *Crawler) prepare(host string, now time.Time) (task, bool, error) {
	h := c.host(host)
	if len(h.hops) > 0 {
		t := h.hops[0]
		h.hops = h.hops[1:]
		return t, true, nil
	}
	var url string
	var seq uint64
	var ok bool
	if h.queued > 0 {
		c.db.View(func(tx *storage.Tx) error {
			url, seq, ok = tx.Head(host)
			return nil
		})
	}
	if !ok {
		h.queued = 0
		c.sched.Cancel(host, now)
		c.sched.SetWork(host, false, now)
		return task{}, false, nil
	}
	origin := originOf(url)
	o := c.origins[origin]
	switch {
	case o != nil && o.gaveUp:
		return task{}, false, c.settleHead(host, url, seq, storage.Failed, o.reason, now)
	case o != nil && o.outcome != 0 && o.rules != nil && !o.usable(now) && o.retryAt.After(now):
		// Unreachable robots.txt: the whole host waits for the retry.
		c.sched.Cancel(host, now)
		c.sched.Hold(host, o.retryAt, now)
		return task{}, false, nil
	case o != nil && o.fetching:
		// Its robots.txt is being fetched through a redirect elsewhere:
		// park the host until the outcome is known.
		c.sched.Cancel(host, now)
		c.sched.SetWork(host, false, now)
		return task{}, false, nil
	case !o.usable(now):
		if o == nil {
			o = &originState{}
			c.origins[origin] = o
		}
		o.fetching = true
		return task{kind: taskRobots, host: host, url: origin + "/robots.txt", origin: origin}, true, nil
	}
	if reason, allowed := c.disallowed(o, url); !allowed {
		return task{}, false, c.settleHead(host, url, seq, storage.Disallowed, reason, now)
	}
	t := task{kind: taskPage, host: host, url: url, seq: seq}
	return t, true, nil
}

// settleHead records the head URL without fetching it and returns the
// unused slot.
func (c *Crawler) settleHead(host, url string, seq uint64, state storage.State, reason string, now time.Time) error {
	err := c.update(func(tx *storage.Tx) error {
		c.event(Event{URL: url, State: string(state), Reason: reason})
		rec, err := tx.GetURL(url)
		if err != nil {
			return err
		}
		if rec == nil {
			rec = &storage.URLRecord{URL: url, Links: []string{}}
		}
		prev := rec.State
		rec.State, rec.Error = state, reason
		if err := tx.PutURL(rec, prev); err != nil {
			return err
		}
		return tx.Dequeue(host, seq)
	})
	if err != nil {
		return err
	}
	h := c.host(host)
	h.queued--
	c.sched.Cancel(host, now)
	c.sched.SetWork(host, h.hasWork(), now)
	c.log.Info("not fetched", "url", url, "state", string(state), "reason", reason)
	return nil
}
