package crawler

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/crawler/sitemap"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// The frontier keeps the sitemap files and admits what they list
// (frontier/sitemaps.go); the crawler reads them and reports.
const (
	smPending    = frontier.SitemapPending
	smRead       = frontier.SitemapRead
	smDisallowed = frontier.SitemapDisallowed
	smSkipped    = frontier.SitemapSkipped
	smFailed     = frontier.SitemapFailed

	dropOutside = frontier.DropOutside
	dropDepth   = frontier.DropDepth
	dropSeen    = frontier.DropSeen
	dropKnown   = frontier.DropKnown
	dropRefused = frontier.DropRefused
)

// recordSitemap applies a sitemap read in the batch's transaction (see
// Frontier.RecordSitemap) and says what became of it.
func (c *urlWriter) recordSitemap(tx *storage.Tx, r result, now time.Time) error {
	t := r.task
	s := frontier.SitemapFetch{URL: t.url, Host: t.host, Err: r.err, Started: r.started}
	if r.err != nil {
		c.cfg.Metrics.Fetch(0, 0, 0)
	} else {
		c.cfg.Metrics.Fetch(r.page.Status, 0, r.page.Duration)
		res := r.smResult
		s.Status, s.Location, s.ParseErr = r.page.Status, r.page.Location, r.parseErr
		s.RetryAfter = robotscache.RetryAfter(r.page.Header.Get("Retry-After"), now)
		s.Format, s.Index, s.Invalid, s.Truncated = res.Format.String(), res.Format == sitemap.Index, res.Invalid, res.Truncated
		s.Entries = make([]frontier.Listed, len(r.entries))
		for i, e := range r.entries {
			s.Entries[i] = frontier.Listed{URL: e.URL, Lastmod: e.Lastmod, Changefreq: e.Changefreq}
		}
	}
	out, err := c.front.RecordSitemap(tx, s, now)
	c.reportRefusals()
	if err != nil || out.Record == nil {
		return err
	}
	rec := out.Record
	log := c.log.With("host", t.host, "sitemap", t.url)
	if out.Why != "" {
		c.log.Info("host backs off", "host", t.host, "until", out.Until.Format(time.RFC3339), "why", out.Why)
	}
	switch {
	case out.Settled:
		c.event(Event{URL: t.url, State: "sitemap " + rec.State, Reason: rec.Error})
	case out.Read:
		if rec.Truncated != "" {
			log.Warn("sitemap truncated", "reason", rec.Truncated)
		}
		log.Info("sitemap", "format", rec.Format, "listed", rec.Listed, "accepted", rec.Accepted, "diverted", rec.Diverted, "dropped", rec.Dropped)
		c.cfg.Metrics.SitemapFates(rec.Accepted, rec.Diverted, rec.Dropped)
		c.event(Event{URL: t.url, State: "sitemap", Status: s.Status, Reason: sitemapSummary(rec)})
	}
	return nil
}

// sitemapSummary is a read sitemap's outcome in one line: its format, and
// how many URLs it listed and were accepted (and, on a cluster node,
// handed to their hosts' nodes).
func sitemapSummary(rec *storage.SitemapRecord) string {
	s := fmt.Sprintf("%s: %d listed, %d accepted", rec.Format, rec.Listed, rec.Accepted)
	if rec.Diverted > 0 {
		s += fmt.Sprintf(", %d handed to their hosts' nodes", rec.Diverted)
	}
	return s
}
