package crawler

import (
	"fmt"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler/sitemap"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// Sitemap record states.
const (
	smPending    = frontier.SitemapPending
	smRead       = frontier.SitemapRead
	smFailed     = "failed"
	smDisallowed = "disallowed"
	smSkipped    = frontier.SitemapSkipped
)

// maxIndexDepth is how many sitemap indexes deep discovery goes.
const maxIndexDepth = 3

// Reasons a listed URL or sitemap is dropped, as counted in records.
const (
	dropInvalid     = "invalid URL"
	dropOutside     = "outside the sitemap's directory and the declaring host"
	dropOutOfScope  = "out of the crawl's scope"
	dropDepth       = "index nested deeper than 3"
	dropSeen        = "sitemap already read or queued (cycle or duplicate)"
	dropCap         = "per-host sitemap cap reached"
	dropParserLimit = "past the 50,000-entry or 50 MiB limit"
	dropKnown       = "already known (listed twice, or found by another route)"
	dropRefused     = "refused by a crawl limit, trap guard or robots.txt (see its record)"
)

// declareSitemaps queues the Sitemap: files of an origin's robots.txt.
func (c *Crawler) declareSitemaps(tx *storage.Tx, origin string, r *robots.Robots) error {
	if !c.cfg.Sitemaps {
		return nil
	}
	base, _ := urlnorm.Parse(origin + "/robots.txt")
	for _, s := range r.Sitemaps() {
		u, err := urlnorm.Resolve(base, s)
		if err != nil {
			c.log.Warn("robots.txt names an unusable sitemap", "origin", origin, "sitemap", s, "error", err)
			continue
		}
		if _, err := c.addSitemap(tx, u.String(), urlnorm.Authority(origin), "", 0); err != nil {
			return err
		}
	}
	return nil
}

// addSitemap records a sitemap file to read, unless it is known already
// (the visited set against cycles) or its host's cap is reached. It
// returns the reason it was not added, "" when it was.
func (c *Crawler) addSitemap(tx *storage.Tx, url, declaredBy, parent string, depth int) (string, error) {
	if old, err := tx.GetSitemap(url); err != nil || old != nil {
		return dropSeen, err
	}
	host := urlnorm.Authority(url)
	rec := &storage.SitemapRecord{URL: url, Host: host, DeclaredBy: declaredBy, Parent: parent, Depth: depth, State: smPending}
	reason := ""
	if !c.front.AddSitemap(host, url, c.cfg.MaxSitemapsPerHost, c.cfg.Now()) {
		rec.State, rec.Error, reason = smSkipped, fmt.Sprintf("%s (%d)", dropCap, c.cfg.MaxSitemapsPerHost), dropCap
	}
	return reason, tx.PutSitemap(rec)
}

// settleSitemap closes a sitemap without reading it.
func (c *Crawler) settleSitemap(tx *storage.Tx, host, url, state, reason string) error {
	c.front.DoneSitemap(host, url, c.cfg.Now())
	rec, err := tx.GetSitemap(url)
	if err != nil || rec == nil {
		return err
	}
	rec.State, rec.Error = state, reason
	c.event(Event{URL: url, State: "sitemap " + state, Reason: reason})
	return tx.PutSitemap(rec)
}

// recordSitemap applies a sitemap read: an index adds sitemaps, any other
// format admits the URLs that pass the sitemap's scope rule and the
// crawl's scope. Everything happens in the batch's transaction, so a crash
// before it commits leaves the sitemap pending, to be read again.
func (c *Crawler) recordSitemap(tx *storage.Tx, r result, now time.Time) error {
	t := r.task
	rec, err := tx.GetSitemap(t.url)
	if err != nil || rec == nil {
		c.front.DoneSitemap(t.host, t.url, now)
		return err
	}
	log := c.log.With("host", t.host, "sitemap", t.url)
	if r.err != nil {
		c.cfg.Metrics.fetch(0, 0, 0)
	} else {
		c.cfg.Metrics.fetch(r.page.Status, 0, r.page.Duration)
	}
	if r.err != nil || r.page.Status == 429 || r.page.Status >= 500 {
		why := fmt.Sprint(r.err)
		if r.err == nil {
			why = fmt.Sprintf("HTTP %d", r.page.Status)
		}
		rec.Attempts++
		c.backOff(t.host, why, 0, now)
		if rec.Attempts < c.cfg.MaxRetries {
			rec.Error = why
			return tx.PutSitemap(rec) // stays pending, at the head
		}
		return c.settleSitemap(tx, t.host, t.url, smFailed, fmt.Sprintf("%s (gave up after %d attempts)", why, rec.Attempts))
	}
	c.front.Recovered(t.host)
	c.front.DoneSitemap(t.host, t.url, now)
	rec.FetchedAt, rec.Attempts = r.started.UTC(), rec.Attempts+1
	switch p := r.page; {
	case p.Status >= 300 && p.Status < 400 && p.Location != "":
		// A moved sitemap is another sitemap, with the same standing.
		rec.State, rec.Error = smRead, "redirect to "+p.Location
		if n, err := urlnorm.Normalise(p.Location); err == nil {
			if _, err := c.addSitemap(tx, n, rec.DeclaredBy, rec.Parent, rec.Depth); err != nil {
				return err
			}
		}
		return tx.PutSitemap(rec)
	case p.Status < 200 || p.Status >= 300:
		return c.settleSitemap(tx, t.host, t.url, smFailed, fmt.Sprintf("HTTP %d", p.Status))
	}
	res := r.smResult
	// The counts are this read's: a re-read starts them over.
	rec.State, rec.Format, rec.Listed, rec.Truncated = smRead, res.Format.String(), res.Entries+res.Invalid, res.Truncated
	rec.Accepted, rec.Dropped = 0, map[string]int{}
	if res.Invalid > 0 {
		rec.Dropped[dropInvalid] += res.Invalid
	}
	if r.parseErr != nil {
		rec.Error = r.parseErr.Error()
	}
	if res.Truncated != "" {
		log.Warn("sitemap truncated", "reason", res.Truncated)
	}
	if res.Format == sitemap.Index {
		err = c.readIndex(tx, rec, r.entries)
	} else {
		err = c.readURLs(tx, rec, r.entries)
	}
	if err != nil {
		return err
	}
	log.Info("sitemap", "format", rec.Format, "listed", rec.Listed, "accepted", rec.Accepted, "dropped", rec.Dropped)
	c.cfg.Metrics.sitemapFates(rec.Accepted, rec.Dropped)
	if err := c.front.ScheduleSitemap(tx, t.url, now); err != nil {
		return err
	}
	c.event(Event{URL: t.url, State: "sitemap", Status: r.page.Status, Reason: fmt.Sprintf("%s: %d listed, %d accepted", rec.Format, rec.Listed, rec.Accepted)})
	return tx.PutSitemap(rec)
}

func (c *Crawler) readIndex(tx *storage.Tx, rec *storage.SitemapRecord, entries []sitemap.Entry) error {
	for _, e := range entries {
		n, err := urlnorm.Normalise(e.URL)
		switch {
		case err != nil:
			rec.Dropped[dropInvalid]++
			continue
		case rec.Depth+1 > maxIndexDepth:
			rec.Dropped[dropDepth]++
			continue
		}
		reason, err := c.addSitemap(tx, n, rec.DeclaredBy, rec.URL, rec.Depth+1)
		if err != nil {
			return err
		}
		if reason != "" {
			rec.Dropped[reason]++
			continue
		}
		rec.Accepted++
	}
	return nil
}

// readURLs admits the listed pages a sitemap may speak for: under its own
// directory, or on the host whose robots.txt declared it (SPEC 4.4).
// Accepted counts the URLs it queued; a URL seen before, or refused by the
// frontier, counts as dropped with that reason.
func (c *Crawler) readURLs(tx *storage.Tx, rec *storage.SitemapRecord, entries []sitemap.Entry) error {
	dir := rec.URL
	if i := strings.IndexByte(dir, '?'); i >= 0 {
		dir = dir[:i]
	}
	dir = dir[:strings.LastIndexByte(dir, '/')+1]
	for _, e := range entries {
		n, err := urlnorm.Normalise(e.URL)
		switch {
		case err != nil:
			rec.Dropped[dropInvalid]++
			continue
		case !strings.HasPrefix(n, dir) && urlnorm.Authority(n) != rec.DeclaredBy:
			rec.Dropped[dropOutside]++
			continue
		case !c.front.InScope(n):
			rec.Dropped[dropOutOfScope]++
			continue
		}
		if tx.Seen(n) {
			// Seen before (a newer lastmod may still make it due again).
			known, err := tx.GetURL(n)
			if err != nil {
				return err
			}
			rec.Dropped[seenFate(known)]++
			if _, err := c.front.LastmodNewer(tx, n, e.Lastmod, c.cfg.Now()); err != nil {
				return err
			}
			continue
		}
		host := urlnorm.Authority(n)
		before := tx.Admitted(host)
		cand := frontier.Candidate{URL: n, Via: "sitemap", Parent: rec.URL, Lastmod: e.Lastmod}
		if err := c.discover(tx, cand); err != nil {
			return err
		}
		if tx.Admitted(host) > before {
			rec.Accepted++
		} else {
			rec.Dropped[dropRefused]++
		}
	}
	return nil
}

// seenFate is the drop reason of a listed URL seen before: refused when it
// was refused (by robots.txt, a limit or a trap guard) and never fetched,
// so that a re-read of a sitemap still says so; already known otherwise.
func seenFate(r *storage.URLRecord) string {
	if r == nil {
		return dropKnown
	}
	switch {
	case r.State == storage.Disallowed, r.State == storage.Skipped,
		r.State == storage.Failed && r.Attempts == 0 && r.FetchedAt.IsZero():
		return dropRefused
	}
	return dropKnown
}
