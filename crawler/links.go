package crawler

import (
	"fmt"

	"github.com/politecrawl/politecrawl/crawler/extract"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// A page's links are normalised on the worker that fetched it and admitted
// by the coordinator. Admission writes a record per new URL, so a page with
// many links is admitted in chunks of linkChunk URLs, one transaction each,
// with the rest of the crawl (other hosts' results and dispatches, the stop
// signal) served between chunks. The page's own record is committed with
// its last chunk: if the crawl dies in between, the page is still queued,
// is fetched again after the restart, and the links already admitted are
// seen and skipped. Nothing is lost and nothing is admitted twice.
const linkChunk = 1000

// normaliseLinks turns a parsed page's links into what the frontier
// admits (see frontier.Outlinks); it runs on the worker.
func normaliseLinks(p *extract.Page, maxLinks int) frontier.Outlinks {
	o := frontier.Outlinks{Dropped: p.LinksDropped, BadMore: p.SkippedMore}
	for _, s := range p.Skipped {
		o.AddBad(s.URL, "unusable link: "+s.Reason)
	}
	o.Normalise(p.Links, maxLinks)
	return o
}

// pendingPage is a fetched page whose links are being admitted in chunks.
type pendingPage struct {
	r    result
	next int // index of the first link not yet admitted
}

// bigPage reports whether r is a page whose links are admitted in chunks
// before the page itself is recorded.
func bigPage(r result) bool {
	return r.task.kind == taskPage && r.links != nil && len(r.links.URLs) > linkChunk &&
		r.err == nil && r.page != nil && r.page.Status >= 200 && r.page.Status < 300
}

// startPending takes a link-heavy page out of the commit path. Its worker
// is free again; its host keeps the slot (no other request to it) until the
// page is recorded.
func (c *Crawler) startPending(r result) {
	r.freed = true
	c.pending = append(c.pending, &pendingPage{r: r})
	c.log.Debug("admitting links in chunks", "url", r.task.url, "links", len(r.links.URLs))
}

// admitChunk admits the next chunk of the oldest pending page, in one
// transaction; the page's record goes with its last chunk. It also keeps
// the host's last request time, so that a stop between chunks still spaces
// the next request after a restart.
func (c *Crawler) admitChunk() error {
	p := c.pending[0]
	r := p.r
	end := min(p.next+linkChunk, len(r.links.URLs))
	last := end == len(r.links.URLs)
	err := c.update(func(tx *storage.Tx) error {
		if err := c.urls.admitLinks(tx, r, r.links.URLs[p.next:end]); err != nil {
			return err
		}
		if last {
			c.commits.Recorded(1) // a result recorded (politecrawl_commit_results)
			return c.record(tx, r)
		}
		c.front.Started(r.task.host, r.sent)
		return c.front.Save(tx, r.task.host)
	})
	if err != nil {
		return fmt.Errorf("admit links of %s: %w", r.task.url, err)
	}
	p.next = end
	if last {
		c.pending = c.pending[1:]
	}
	return nil
}

// admitLinks admits links found on the page of r.
func (c *urlWriter) admitLinks(tx *storage.Tx, r result, links []string) error {
	depth := 0
	if rec, err := tx.GetURL(r.task.url); err != nil {
		return err
	} else if rec != nil {
		depth = rec.Depth
	}
	for _, n := range links {
		if err := c.discover(tx, frontier.Candidate{URL: n, Depth: depth + 1, Via: "link", Parent: r.task.url}); err != nil {
			return err
		}
	}
	return nil
}
