// Package robotswait says, once, when all a crawl has left to do waits on
// hosts retrying an unreachable robots.txt, which hosts and until when: a
// batch run otherwise looks stuck.
package robotswait

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
)

// wait is a host whose every queued URL waits on a robots.txt retry.
type wait struct {
	host    string
	retryAt time.Time
	attempt int
}

// Hosts is what Notice reads of the frontier.
type Hosts interface {
	Hosts(fn func(host string))
	HasWork(host string) bool
}

// Notice owns the notice that the crawl only waits on robots.txt retries:
// it reads the robots.txt cache and the frontier, and says each new list
// of waiting hosts once.
type Notice struct {
	Log     *slog.Logger
	Robots  *robotscache.Cache
	Hosts   Hosts
	Retries int    // politeness.robots_retries, for the notice
	Daemon  bool   // the crawl rechecks: it never ends on its own
	notice  string // the last notice, said once
}

// Note says once, when nothing is in flight and the only work
// left is hosts waiting to retry an unreachable robots.txt, which hosts and
// until when: a batch run otherwise looks stuck.
func (c *Notice) Note(now time.Time) {
	waits, ok := c.only(now)
	if !ok {
		c.notice = ""
		return
	}
	var b strings.Builder
	last := now
	for i, w := range waits {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(waits)-5)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (retry %d of %d at %s)", w.host, w.attempt, c.Retries, w.retryAt.Format(time.TimeOnly))
	}
	for _, w := range waits {
		if w.retryAt.After(last) {
			last = w.retryAt
		}
	}
	if msg := b.String(); msg != c.notice {
		c.notice = msg
		// A batch run ends once these are decided; a daemon keeps
		// going, so how to end a batch sooner is no help there.
		hint := "run --robots-retries 0 ends a batch now; the next run retries these hosts"
		if c.Daemon {
			hint = "the daemon keeps retrying as above; politeness.robots_retries and robots_retry_delay set how"
		}
		c.Log.Warn("only waiting on unreachable robots.txt", "hosts", len(waits), "waiting", msg,
			"last_retry", last.Format(time.RFC3339), "hint", hint)
	}
}

// only lists the hosts with work if every one of them is held
// by a robots.txt retry; ok is false otherwise.
func (c *Notice) only(now time.Time) (waits []wait, ok bool) {
	retrying := map[string]*robotscache.Origin{}
	c.Robots.Each(func(origin string, o *robotscache.Origin) {
		if o.Retrying(now) {
			retrying[urlnorm.Authority(origin)] = o
		}
	})
	if len(retrying) == 0 {
		return nil, false
	}
	others := false
	c.Hosts.Hosts(func(name string) {
		if others || !c.Hosts.HasWork(name) {
			return
		}
		o := retrying[name]
		if o == nil {
			others = true
			return
		}
		waits = append(waits, wait{host: name, retryAt: o.RetryAt(), attempt: o.Attempts()})
	})
	if others {
		return nil, false
	}
	// By retry time, then by name: the frontier lists hosts in no fixed
	// order, and the same waits must read the same to be said once.
	slices.SortFunc(waits, func(a, b wait) int {
		if c := a.retryAt.Compare(b.retryAt); c != 0 {
			return c
		}
		return strings.Compare(a.host, b.host)
	})
	return waits, len(waits) > 0
}
