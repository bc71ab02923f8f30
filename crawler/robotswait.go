package crawler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// robotsGaveUpPrefix starts the error of a URL failed because its host's
// robots.txt stayed unreachable; a later run queues such URLs again.
const robotsGaveUpPrefix = "robots.txt unreachable after "

// gaveUpOnRobots reports whether a URL failed because its origin's
// robots.txt never answered (or its address was refused): the next run
// gives such URLs another chance. The origin's robots.txt is fetched
// again (robotscache.Cache.Restore forgets an unreachable outcome). A
// batch run with --robots-retries 0 thus ends at once, and the next run
// retries.
func gaveUpOnRobots(errText string) bool {
	return strings.HasPrefix(errText, robotsGaveUpPrefix) || strings.HasPrefix(errText, privatePrefix)
}

// requeueUnreachable queues again the URLs of every origin whose
// robots.txt was unreachable when the last run gave up on it.
func (c *Crawler) requeueUnreachable(tx *storage.Tx) error {
	var retry []string
	if err := tx.ForEachRobots(func(origin string, r *storage.RobotsRecord) error {
		if r.Outcome == robotscache.Unreachable.String() {
			retry = append(retry, origin)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, origin := range retry {
		n, err := frontier.RequeueGivenUp(tx, origin, gaveUpOnRobots)
		if err != nil {
			return err
		}
		if n > 0 {
			c.log.Info("robots.txt was unreachable last run: its URLs are queued again", "origin", origin, "urls", n)
		}
	}
	return nil
}

// robotsWait is a host whose every queued URL waits on a robots.txt retry.
type robotsWait struct {
	host    string
	retryAt time.Time
	attempt int
}

// noteRobotsWaits says once, when nothing is in flight and the only work
// left is hosts waiting to retry an unreachable robots.txt, which hosts and
// until when: a batch run otherwise looks stuck.
func (c *Crawler) noteRobotsWaits(now time.Time) {
	waits, ok := c.onlyRobotsWaits(now)
	if !ok {
		c.robotsNotice = ""
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
		fmt.Fprintf(&b, "%s (retry %d of %d at %s)", w.host, w.attempt, c.cfg.RobotsRetries, w.retryAt.Format(time.TimeOnly))
	}
	for _, w := range waits {
		if w.retryAt.After(last) {
			last = w.retryAt
		}
	}
	if msg := b.String(); msg != c.robotsNotice {
		c.robotsNotice = msg
		// A batch run ends once these are decided; a daemon keeps
		// going, so how to end a batch sooner is no help there.
		hint := "run --robots-retries 0 ends a batch now; the next run retries these hosts"
		if c.cfg.Recrawl > 0 {
			hint = "the daemon keeps retrying as above; politeness.robots_retries and robots_retry_delay set how"
		}
		c.log.Warn("only waiting on unreachable robots.txt", "hosts", len(waits), "waiting", msg,
			"last_retry", last.Format(time.RFC3339), "hint", hint)
	}
}

// onlyRobotsWaits lists the hosts with work if every one of them is held
// by a robots.txt retry; ok is false otherwise.
func (c *Crawler) onlyRobotsWaits(now time.Time) (waits []robotsWait, ok bool) {
	retrying := map[string]*robotscache.Origin{}
	c.robots.Each(func(origin string, o *robotscache.Origin) {
		if o.Retrying(now) {
			retrying[urlnorm.Authority(origin)] = o
		}
	})
	if len(retrying) == 0 {
		return nil, false
	}
	others := false
	c.front.Hosts(func(name string) {
		if others || !c.front.HasWork(name) {
			return
		}
		o := retrying[name]
		if o == nil {
			others = true
			return
		}
		waits = append(waits, robotsWait{host: name, retryAt: o.RetryAt(), attempt: o.Attempts()})
	})
	if others {
		return nil, false
	}
	slices.SortFunc(waits, func(a, b robotsWait) int { return a.retryAt.Compare(b.retryAt) })
	return waits, len(waits) > 0
}
