package crawler

import (
	"fmt"

	"github.com/politecrawl/politecrawl/crawler/extract"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
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

// maxBadLinks bounds how many unusable links of one page are recorded as
// skipped; the rest are only counted.
const maxBadLinks = 100

// badLinkPrefix is how much of an unusable link a skipped record keeps.
const badLinkPrefix = 2048

// pageLinks is a page's outlinks as the coordinator admits them.
type pageLinks struct {
	urls    []string  // normalised, deduplicated, in document order, at most MaxLinksPerPage
	dropped int       // links past MaxLinksPerPage: counted, not queued
	bad     []badLink // links that could not be normalised (at most maxBadLinks)
	badMore int       // further unusable links, counted only
}

// badLink is a link recorded as skipped instead of queued.
type badLink struct {
	url    string // the link as found, cut to badLinkPrefix bytes
	reason string
}

// normaliseLinks turns extracted links into what the coordinator admits.
// It runs on the worker: normalising is the costly part of a link-heavy
// page, and the coordinator serves every host.
func normaliseLinks(p *extract.Page, maxLinks int) pageLinks {
	links := p.Links
	pl := pageLinks{urls: make([]string, 0, min(len(links), maxLinks)), dropped: p.LinksDropped, badMore: p.SkippedMore}
	for _, s := range p.Skipped {
		pl.addBad(s.URL, "unusable link: "+s.Reason)
	}
	seen := make(map[string]struct{}, min(len(links), maxLinks))
	for i, l := range links {
		if len(pl.urls) >= maxLinks {
			// Past the cap, links are counted, not normalised.
			pl.dropped += len(links) - i
			break
		}
		n, err := urlnorm.Normalise(l)
		if err != nil {
			pl.addBad(l, "unusable link: "+err.Error())
			continue
		}
		if _, dup := seen[n]; dup {
			continue
		}
		seen[n] = struct{}{}
		pl.urls = append(pl.urls, n)
	}
	return pl
}

func (pl *pageLinks) addBad(link, reason string) {
	if len(pl.bad) >= maxBadLinks {
		pl.badMore++
		return
	}
	if len(link) > badLinkPrefix {
		link = link[:badLinkPrefix] + "..."
	}
	pl.bad = append(pl.bad, badLink{url: link, reason: reason})
}

// pendingPage is a fetched page whose links are being admitted in chunks.
type pendingPage struct {
	r    result
	next int // index of the first link not yet admitted
}

// bigPage reports whether r is a page whose links are admitted in chunks
// before the page itself is recorded.
func bigPage(r result) bool {
	return r.task.kind == taskPage && r.links != nil && len(r.links.urls) > linkChunk &&
		r.err == nil && r.page != nil && r.page.Status >= 200 && r.page.Status < 300
}

// startPending takes a link-heavy page out of the commit path. Its worker
// is free again; its host keeps the slot (no other request to it) until the
// page is recorded.
func (c *Crawler) startPending(r result) {
	r.freed = true
	c.pending = append(c.pending, &pendingPage{r: r})
	c.log.Debug("admitting links in chunks", "url", r.task.url, "links", len(r.links.urls))
}

// admitChunk admits the next chunk of the oldest pending page, in one
// transaction; the page's record goes with its last chunk. It also keeps
// the host's last request time, so that a stop between chunks still spaces
// the next request after a restart.
func (c *Crawler) admitChunk() error {
	p := c.pending[0]
	r := p.r
	end := min(p.next+linkChunk, len(r.links.urls))
	last := end == len(r.links.urls)
	err := c.update(func(tx *storage.Tx) error {
		if err := c.admitLinks(tx, r, r.links.urls[p.next:end]); err != nil {
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
func (c *Crawler) admitLinks(tx *storage.Tx, r result, links []string) error {
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

// recordBadLinks records a page's unusable links as skipped, each once.
func recordBadLinks(tx *storage.Tx, parent string, depth int, bad []badLink) error {
	for _, b := range bad {
		if tx.Seen(b.url) {
			continue
		}
		rec := &storage.URLRecord{URL: b.url, State: storage.Skipped, Error: b.reason, Depth: depth,
			DiscoveredVia: "link", Parent: parent, Links: []string{}}
		if err := tx.PutURL(rec, ""); err != nil {
			return err
		}
	}
	return nil
}
