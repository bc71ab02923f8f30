package crawler

import (
	"context"

	"github.com/politecrawl/politecrawl/storage"
)

// PauseHost pauses (pause true) or resumes a host of the running crawl:
// a paused host gets no request until it is resumed, across restarts (its
// record keeps the pause); a request in flight finishes. It reports
// whether the crawl knows the host. changed, if not nil, is called on the
// coordinator once a known host's pause is recorded and before the crawl
// goes on, so that a log line of it comes before what follows (the
// crawl's end, when only paused hosts have work left).
func (c *Crawler) PauseHost(ctx context.Context, host string, pause bool, changed func()) (bool, error) {
	var known bool
	var err error
	if e := c.do(ctx, func() {
		if known = c.front.PauseHost(host, pause, c.cfg.Now()); known {
			err = c.updateAlone(func(tx *storage.Tx) error { return c.front.Save(tx, host) })
		}
		if known && err == nil && changed != nil {
			changed()
		}
	}); e != nil {
		return false, e
	}
	return known, err
}
