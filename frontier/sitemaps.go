package frontier

import (
	"fmt"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// Sitemaps are a host's work besides its queue: the files robots.txt
// declares (and those their indexes list) are recorded in the state file,
// read in turn on their host's slot, and the URLs they list admitted like
// links. The Frontier keeps the files still to read per host, the
// per-host cap, and each file's record: its state and what became of the
// URLs it listed.

// Sitemap record states.
const (
	SitemapPending    = "pending"
	SitemapRead       = "read"
	SitemapFailed     = "failed"
	SitemapDisallowed = "disallowed"
	SitemapSkipped    = "skipped"
)

// maxIndexDepth is how many sitemap indexes deep discovery goes.
const maxIndexDepth = 3

// Reasons a listed URL or sitemap is dropped, as counted in records.
const (
	DropInvalid    = "invalid URL"
	DropOutside    = "outside the sitemap's directory and the declaring host"
	DropOutOfScope = "out of the crawl's scope"
	DropDepth      = "index nested deeper than 3"
	DropSeen       = "sitemap already read or queued (cycle or duplicate)"
	DropCap        = "per-host sitemap cap reached"
	DropKnown      = "already known (listed twice, or found by another route)"
	DropRefused    = "refused by a crawl limit, trap guard or robots.txt (see its record)"
)

// SitemapPolicy is how sitemaps are used.
type SitemapPolicy struct {
	Use        bool // read the sitemaps robots.txt declares
	MaxPerHost int  // sitemap files accepted per host
	MaxRetries int  // tries of a file whose server fails (5xx, 429, network)
}

// DeclareSitemaps records the Sitemap: files of an origin's robots.txt,
// to be read on their hosts' slots.
func (f *Frontier[H]) DeclareSitemaps(tx *storage.Tx, origin string, r *robots.Robots, now time.Time) error {
	if !f.sitemaps.Use {
		return nil
	}
	base, _ := urlnorm.Parse(origin + "/robots.txt")
	for _, s := range r.Sitemaps() {
		u, err := urlnorm.Resolve(base, s)
		if err != nil {
			f.log.Warn("robots.txt names an unusable sitemap", "origin", origin, "sitemap", s, "error", err)
			continue
		}
		if _, err := f.addSitemap(tx, u.String(), urlnorm.Authority(origin), "", 0, now); err != nil {
			return err
		}
	}
	return nil
}

// addSitemap records a sitemap file to read, unless it is known already
// (the visited set against cycles) or its host's cap is reached. It
// returns the reason it was not added, "" when it was.
func (f *Frontier[H]) addSitemap(tx *storage.Tx, url, declaredBy, parent string, depth int, now time.Time) (string, error) {
	if old, err := tx.GetSitemap(url); err != nil || old != nil {
		return DropSeen, err
	}
	host := urlnorm.Authority(url)
	rec := &storage.SitemapRecord{URL: url, Host: host, DeclaredBy: declaredBy, Parent: parent, Depth: depth, State: SitemapPending}
	reason := ""
	if !f.queueSitemap(host, url, now) {
		rec.State, rec.Error, reason = SitemapSkipped, fmt.Sprintf("%s (%d)", DropCap, f.sitemaps.MaxPerHost), DropCap
	}
	return reason, tx.PutSitemap(rec)
}

// queueSitemap adds a sitemap file to read on host, unless the host has
// accepted its cap already; it reports whether it was added.
func (f *Frontier[H]) queueSitemap(host, url string, now time.Time) bool {
	w := f.meet(host, now)
	if w.nSitemap >= f.sitemaps.MaxPerHost {
		return false
	}
	w.nSitemap++
	w.sitemaps = append(w.sitemaps, url)
	f.setWork(host, now)
	return true
}

// SettleSitemap closes the sitemap file url of host without reading it,
// in state for reason.
func (f *Frontier[H]) SettleSitemap(tx *storage.Tx, host, url, state, reason string, now time.Time) error {
	f.DoneSitemap(host, url, now)
	rec, err := tx.GetSitemap(url)
	if err != nil || rec == nil {
		return err
	}
	rec.State, rec.Error = state, reason
	return tx.PutSitemap(rec)
}

// SitemapFetch is what the request for a sitemap file brought back.
type SitemapFetch struct {
	URL, Host string
	Err       error // the request failed
	Status    int
	Location  string // a redirect's target, normalised or not
	Started   time.Time
	// RetryAfter is a 429's or 5xx's Retry-After: the host is held at
	// least that long, as after a page's (0: none).
	RetryAfter time.Duration
	// A file read (2xx): its format, whether it is an index (its
	// entries are sitemaps), the entries it listed, how many it listed
	// that were unusable, why parsing stopped early (if it did), and a
	// parse error after some entries.
	Format    string
	Index     bool
	Entries   []Listed
	Invalid   int
	Truncated string
	ParseErr  error
}

// Listed is one entry of a sitemap file.
type Listed struct {
	URL        string
	Lastmod    time.Time
	Changefreq string // the sitemap's hint, for the page's first recheck
}

// SitemapOutcome is what RecordSitemap made of a sitemap fetch.
type SitemapOutcome struct {
	// Record is the file's record as this fetch left it (a file closed
	// unread is written with only its State and Error changed); nil if
	// the file was not known (nothing was done).
	Record *storage.SitemapRecord
	// Retry: the server failed (Why); the file stays pending and the
	// host backs off until Until.
	Retry bool
	Why   string
	Until time.Time
	// Settled: the file is closed unread; Record's State and Error say
	// how and why.
	Settled bool
	// Moved: the file redirected; its target is recorded as a sitemap
	// with the same standing.
	Moved bool
	// Read: the file was read: Record counts what became of its URLs.
	Read bool
}

// RecordSitemap applies a sitemap fetch in tx: a failure the server may
// get over backs the host off and leaves the file pending (up to
// MaxRetries tries); a redirect records another sitemap with the same
// standing; an index records the sitemaps it lists; any other format
// admits the URLs that pass the sitemap's scope rule and the crawl's
// scope. A crash before tx commits leaves the file pending, to be read
// again.
func (f *Frontier[H]) RecordSitemap(tx *storage.Tx, s SitemapFetch, now time.Time) (SitemapOutcome, error) {
	var out SitemapOutcome
	rec, err := tx.GetSitemap(s.URL)
	if err != nil || rec == nil {
		f.DoneSitemap(s.Host, s.URL, now)
		return out, err
	}
	out.Record = rec
	if s.Err != nil || s.Status == 429 || s.Status >= 500 {
		why := fmt.Sprint(s.Err)
		if s.Err == nil {
			why = fmt.Sprintf("HTTP %d", s.Status)
		}
		rec.Attempts++
		out.Why, out.Until = why, f.Fail(s.Host, why, s.RetryAfter, now)
		if rec.Attempts < f.sitemaps.MaxRetries {
			rec.Error, out.Retry = why, true
			return out, tx.PutSitemap(rec) // stays pending, at the head
		}
		out.Settled = true
		rec.State, rec.Error = SitemapFailed, fmt.Sprintf("%s (gave up after %d attempts)", why, rec.Attempts)
		return out, f.SettleSitemap(tx, s.Host, s.URL, rec.State, rec.Error, now)
	}
	f.Recovered(s.Host, now)
	f.DoneSitemap(s.Host, s.URL, now)
	rec.FetchedAt, rec.Attempts = s.Started.UTC(), rec.Attempts+1
	switch {
	case s.Status >= 300 && s.Status < 400 && s.Location != "":
		// A moved sitemap is another sitemap, with the same standing.
		rec.State, rec.Error, out.Moved = SitemapRead, "redirect to "+s.Location, true
		if n, err := urlnorm.Normalise(s.Location); err == nil {
			if _, err := f.addSitemap(tx, n, rec.DeclaredBy, rec.Parent, rec.Depth, now); err != nil {
				return out, err
			}
		}
		return out, tx.PutSitemap(rec)
	case s.Status < 200 || s.Status >= 300:
		out.Settled = true
		rec.State, rec.Error = SitemapFailed, fmt.Sprintf("HTTP %d", s.Status)
		return out, f.SettleSitemap(tx, s.Host, s.URL, rec.State, rec.Error, now)
	}
	// The counts are this read's: a re-read starts them over.
	rec.State, rec.Format, rec.Listed, rec.Truncated = SitemapRead, s.Format, len(s.Entries)+s.Invalid, s.Truncated
	rec.Accepted, rec.Diverted, rec.Dropped, out.Read = 0, 0, map[string]int{}, true
	if s.Invalid > 0 {
		rec.Dropped[DropInvalid] += s.Invalid
	}
	if s.ParseErr != nil {
		rec.Error = s.ParseErr.Error()
	}
	if s.Index {
		err = f.readIndex(tx, rec, s.Entries, now)
	} else {
		err = f.readURLs(tx, rec, s.Entries, now)
	}
	if err != nil {
		return out, err
	}
	if err := f.ScheduleSitemap(tx, s.URL, now); err != nil {
		return out, err
	}
	return out, tx.PutSitemap(rec)
}

func (f *Frontier[H]) readIndex(tx *storage.Tx, rec *storage.SitemapRecord, entries []Listed, now time.Time) error {
	for _, e := range entries {
		n, err := urlnorm.Normalise(e.URL)
		switch {
		case err != nil:
			rec.Dropped[DropInvalid]++
			continue
		case rec.Depth+1 > maxIndexDepth:
			rec.Dropped[DropDepth]++
			continue
		}
		reason, err := f.addSitemap(tx, n, rec.DeclaredBy, rec.URL, rec.Depth+1, now)
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
// Accepted counts the URLs it queued, Diverted those handed to the node
// owning their host (a cluster node admits nothing itself); a URL seen
// before, or refused by the frontier, counts as dropped with that reason.
func (f *Frontier[H]) readURLs(tx *storage.Tx, rec *storage.SitemapRecord, entries []Listed, now time.Time) error {
	dir := rec.URL
	if i := strings.IndexByte(dir, '?'); i >= 0 {
		dir = dir[:i]
	}
	dir = dir[:strings.LastIndexByte(dir, '/')+1]
	for _, e := range entries {
		n, err := urlnorm.Normalise(e.URL)
		switch {
		case err != nil:
			rec.Dropped[DropInvalid]++
			continue
		case !strings.HasPrefix(n, dir) && urlnorm.Authority(n) != rec.DeclaredBy:
			rec.Dropped[DropOutside]++
			continue
		case !f.InScope(n):
			rec.Dropped[DropOutOfScope]++
			continue
		}
		if tx.Seen(n) {
			// Seen before (a newer lastmod may still make it due again).
			known, err := tx.GetURL(n)
			if err != nil {
				return err
			}
			rec.Dropped[seenFate(known)]++
			if _, err := f.LastmodNewer(tx, n, e.Lastmod, now); err != nil {
				return err
			}
			continue
		}
		host := urlnorm.Authority(n)
		before := tx.Admitted(host)
		cand := Candidate{URL: n, Via: "sitemap", Parent: rec.URL, Lastmod: e.Lastmod, Changefreq: e.Changefreq}
		a, err := f.Discover(tx, cand, now)
		switch {
		case err != nil:
			return err
		case a.Diverted:
			rec.Diverted++
		case tx.Admitted(host) > before:
			rec.Accepted++
		default:
			rec.Dropped[DropRefused]++
		}
	}
	return nil
}

// seenFate is the drop reason of a listed URL seen before: refused when it
// was refused (by robots.txt, a limit or a trap guard) and never fetched,
// so that a re-read of a sitemap still says so; already known otherwise.
func seenFate(r *storage.URLRecord) string {
	if r == nil {
		return DropKnown
	}
	switch {
	case r.State == storage.Disallowed, r.State == storage.Skipped,
		r.State == storage.Failed && r.Attempts == 0 && r.FetchedAt.IsZero():
		return DropRefused
	}
	return DropKnown
}
