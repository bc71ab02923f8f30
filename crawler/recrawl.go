package crawler

import (
	"time"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// scheduleCheck makes a fetched (or failed) page due again Recrawl after
// now. The due entry carries the time, and so does the record: an entry
// whose time no longer matches the record's NextCheck is stale.
func (c *Crawler) scheduleCheck(tx *storage.Tx, rec *storage.URLRecord) error {
	if c.cfg.Recrawl <= 0 || rec.State != storage.Fetched && rec.State != storage.Failed {
		return nil
	}
	at := c.cfg.Now().Add(c.cfg.Recrawl).Round(0)
	rec.NextCheck = at
	c.noteDue(at)
	return tx.ScheduleDue(storage.Due{At: at, Kind: storage.DuePage, URL: rec.URL})
}

func (c *Crawler) scheduleSitemap(tx *storage.Tx, url string) error {
	if c.cfg.Recrawl <= 0 {
		return nil
	}
	at := c.cfg.Now().Add(c.cfg.Recrawl).Round(0)
	c.noteDue(at)
	return tx.ScheduleDue(storage.Due{At: at, Kind: storage.DueSitemap, URL: url})
}

func (c *Crawler) noteDue(at time.Time) {
	if c.nextDue.IsZero() || at.Before(c.nextDue) {
		c.nextDue = at
	}
}

// promoteDue moves recrawls whose time has come into their hosts' queues
// (pages) or sitemap lists (sitemaps), in one transaction.
func (c *Crawler) promoteDue() error {
	now := c.cfg.Now()
	if c.nextDue.IsZero() || c.nextDue.After(now) {
		return nil
	}
	return c.update(func(tx *storage.Tx) error {
		due, err := tx.PopDue(now, 10000)
		if err != nil {
			return err
		}
		for _, d := range due {
			if d.Kind == storage.DueSitemap {
				err = c.rereadSitemap(tx, d.URL)
			} else {
				err = c.recheck(tx, d)
			}
			if err != nil {
				return err
			}
		}
		c.nextDue = time.Time{}
		if t, ok := tx.NextDue(); ok {
			c.nextDue = t
		}
		return nil
	})
}

// recheck queues a page for its recrawl, unless the entry is stale.
func (c *Crawler) recheck(tx *storage.Tx, d storage.Due) error {
	rec, err := tx.GetURL(d.URL)
	if err != nil || rec == nil || !rec.NextCheck.Equal(d.At) {
		return err
	}
	return c.requeue(tx, rec)
}

// requeue puts a decided page back at the tail of its host's queue for a
// recheck. Its record keeps its state (and export data) meanwhile.
func (c *Crawler) requeue(tx *storage.Tx, rec *storage.URLRecord) error {
	rec.NextCheck, rec.Attempts = time.Time{}, 0
	if err := tx.PutURL(rec, rec.State); err != nil {
		return err
	}
	host := urlnorm.Authority(rec.URL)
	if err := tx.Enqueue(host, rec.URL); err != nil {
		return err
	}
	c.queuedMore(host, rec.URL, tx.LastSeq())
	return nil
}

// rereadSitemap makes a read sitemap pending again.
func (c *Crawler) rereadSitemap(tx *storage.Tx, url string) error {
	rec, err := tx.GetSitemap(url)
	if err != nil || rec == nil || rec.State != smRead {
		return err
	}
	rec.State = smPending
	if err := tx.PutSitemap(rec); err != nil {
		return err
	}
	h := c.host(rec.Host)
	h.sitemaps = append(h.sitemaps, url)
	c.setWork(rec.Host, h)
	return nil
}

// lastmodNewer makes a page a sitemap lists due at once when the sitemap
// says it changed after our fetch. It reports whether the URL was known.
func (c *Crawler) lastmodNewer(tx *storage.Tx, url string, lastmod time.Time) (bool, error) {
	rec, err := tx.GetURL(url)
	if err != nil || rec == nil {
		return false, err
	}
	if c.cfg.Recrawl > 0 && rec.State == storage.Fetched && !rec.NextCheck.IsZero() &&
		!lastmod.IsZero() && lastmod.After(rec.FetchedAt) {
		rec.Lastmod = lastmod
		return true, c.requeue(tx, rec)
	}
	return true, nil
}
