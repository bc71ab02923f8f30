package frontier

import (
	"fmt"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// Limits bound the crawl. Zero (false) means unlimited, or the guard off,
// for each field; DefaultLimits has every trap guard on.
type Limits struct {
	MaxDepth            int // links followed from a seed
	MaxPages            int // URLs admitted over the whole crawl
	MaxPagesPerHost     int // URLs admitted per host: a trap guard
	MaxURLLength        int // bytes of the normal URL: a trap guard
	MaxRepeatedSegments int // times one path segment may occur: a trap guard

	// Query guards, against ever-growing queries.
	MaxQueryParams  int // parameters in the query
	MaxParamRepeats int // times one parameter name may occur; a name=value pair may occur once
	MaxQueryLength  int // bytes of the query
	// RefuseSessionIDs refuses URLs carrying a session id (;jsessionid=,
	// PHPSESSID=, sid=, ... with a random-looking value): every fetch
	// would hand out new ones.
	RefuseSessionIDs bool

	// Date guards, against calendars (see urlDates for what a date is).
	MaxDaysAhead int // a date in the URL may lie at most this far after today
	// CalendarDays bounds calendar navigation: a dated URL linked from a
	// page of the same host and date shape (its URL with the dates
	// replaced) but another date must lie within this many days of today.
	// Archives linked from elsewhere (a blog's sidebar) are not bound.
	CalendarDays int
	// MaxPerDateShape caps dated URLs admitted per host and date shape
	// (the URL with its dates replaced: all of a calendar's month pages
	// share one, a dated article's id keeps its own) since the Admitter
	// was made.
	MaxPerDateShape int
}

// Candidate is a discovered URL, already normalised.
type Candidate struct {
	URL        string
	Depth      int
	Via        string // seed, link, sitemap, redirect
	Parent     string
	Redirects  int
	Lastmod    time.Time
	Changefreq string // a sitemap's changefreq (see storage.URLRecord)
}

// Admitter decides what becomes of a discovered URL. Not safe for
// concurrent use.
type Admitter struct {
	scope    *scope.Scope
	hosts    *Overrides // per-host page budgets; nil: none
	limits   Limits
	admitted int
	now      func() time.Time
	shapes   *shapeCounts // made on the first dated URL
}

// NewAdmitter returns an Admitter; admitted is how many URLs the crawl
// has admitted so far (on resume, from the state file's counters); now
// tells the date guards what today is (nil: time.Now).
func NewAdmitter(scope *scope.Scope, limits Limits, admitted int, now func() time.Time) *Admitter {
	if now == nil {
		now = time.Now
	}
	return &Admitter{scope: scope, limits: limits, admitted: admitted, now: now}
}

// SetScope replaces the scope (config reload).
func (a *Admitter) SetScope(s *scope.Scope) { a.scope = s }

// InScope reports whether a normal URL is inside the scope.
func (a *Admitter) InScope(url string) bool { return a.scope.Contains(url) }

// Decide is the scope's decision on a normal URL, naming the rule.
func (a *Admitter) Decide(url string) scope.Decision { return a.scope.Decide(url) }

// Admit records c in tx: queued (true is returned), skipped with the
// reason in its Error field, or not at all when it was seen before or lies
// outside the host scope. Nothing about the URL is kept in memory.
func (a *Admitter) Admit(tx *storage.Tx, c Candidate) (bool, error) {
	return a.admit(tx, c, nil)
}

// admit is Admit with refuse, if not nil, asked last about a URL that
// would be queued: a non-empty state records it in that state instead
// (its origin's robots.txt already disallows it; see Frontier.Admit).
func (a *Admitter) admit(tx *storage.Tx, c Candidate, refuse func(url string) Verdict) (bool, error) {
	if tx.Seen(c.URL) || !a.scope.Contains(c.URL) {
		return false, nil
	}
	host := urlnorm.Authority(c.URL)
	rec := &storage.URLRecord{URL: c.URL, Depth: c.Depth, DiscoveredVia: c.Via, Parent: c.Parent,
		Redirects: c.Redirects, Lastmod: c.Lastmod, Changefreq: c.Changefreq, Links: []string{}}
	shapeKey, reason := a.refuse(tx, c, host)
	if reason != "" {
		rec.State, rec.Error = storage.Skipped, reason
		return false, tx.PutURL(rec, "")
	}
	if refuse != nil {
		if v := refuse(c.URL); v.State != "" {
			rec.State, rec.Error, rec.ContentUse = v.State, v.Reason, v.ContentUse
			return false, tx.PutURL(rec, "")
		}
	}
	rec.State = storage.Queued
	if err := tx.PutURL(rec, ""); err != nil {
		return false, err
	}
	if err := tx.Enqueue(host, c.URL); err != nil {
		return false, err
	}
	tx.AddAdmitted(host, 1)
	a.admitted++
	if shapeKey != "" {
		a.shapes.add(shapeKey)
	}
	return true, nil
}

// refuse returns why c is not to be queued, or "" and, for a dated URL
// under the per-shape budget, the key to count it under once queued.
func (a *Admitter) refuse(tx *storage.Tx, c Candidate, host string) (shapeKey, reason string) {
	l := a.limits
	switch {
	case l.MaxURLLength > 0 && len(c.URL) > l.MaxURLLength:
		return "", fmt.Sprintf("trap: URL longer than %d bytes", l.MaxURLLength)
	case l.MaxRepeatedSegments > 0 && repeatedSegments(c.URL) > l.MaxRepeatedSegments:
		return "", fmt.Sprintf("trap: a path segment repeats more than %d times", l.MaxRepeatedSegments)
	}
	_, path, query := urlParts(c.URL)
	if r := l.queryTrap(query); r != "" {
		return "", r
	}
	if l.RefuseSessionIDs {
		if name := sessionID(path, query); name != "" {
			return "", fmt.Sprintf("trap: session id %s in the URL", name)
		}
	}
	if dates, shape := urlDates(path, query); len(dates) > 0 {
		if r := l.dateTrap(dates, shape, c.Parent, host, a.now()); r != "" {
			return "", r
		}
		if l.MaxPerDateShape > 0 {
			if a.shapes == nil {
				a.shapes = newShapeCounts()
			}
			shapeKey = host + " " + shape
			if a.shapes.get(shapeKey) >= l.MaxPerDateShape {
				return "", fmt.Sprintf("trap: %d dated URLs of the pattern %.80s on this host", l.MaxPerDateShape, shape)
			}
		}
	}
	switch {
	case l.MaxDepth > 0 && c.Depth > l.MaxDepth:
		return "", fmt.Sprintf("max_depth %d reached", l.MaxDepth)
	case l.MaxPages > 0 && a.admitted >= l.MaxPages:
		return "", fmt.Sprintf("max_pages %d reached", l.MaxPages)
	case l.MaxPagesPerHost > 0 && tx.Admitted(host) >= l.MaxPagesPerHost:
		return "", fmt.Sprintf("trap: per-host page budget of %d reached", l.MaxPagesPerHost)
	}
	if o, ok := a.hosts.For(host); ok && o.MaxPages > 0 && tx.Admitted(host) >= o.MaxPages {
		return "", fmt.Sprintf("%s.max_pages %d reached", o.Key, o.MaxPages)
	}
	return shapeKey, ""
}

// repeatedSegments returns how often the most frequent non-empty path
// segment occurs: /a/b/a/b/a gives 3. Calendars and relative-link loops
// produce such paths without end. It runs for every link admitted, so a
// path of a few segments is counted by comparing them pairwise, without
// the map and split a long one gets (quadratic there).
func repeatedSegments(normal string) int {
	p := normal
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
	}
	if i := strings.IndexByte(p, '/'); i >= 0 {
		p = p[i:]
	} else {
		return 0
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if strings.Count(p, "/") > pairwiseSegments {
		return repeatedSegmentsMap(p)
	}
	best := 0
	for rest := p; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if seg == "" {
			continue
		}
		n := 1
		for r := rest; r != ""; {
			var s string
			if s, r, _ = strings.Cut(r, "/"); s == seg {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

// pairwiseSegments is the number of segments up to which
// repeatedSegments compares them pairwise.
const pairwiseSegments = 32

// repeatedSegmentsMap is repeatedSegments for a long path.
func repeatedSegmentsMap(path string) int {
	counts := map[string]int{}
	best := 0
	for _, seg := range strings.Split(path, "/") {
		if seg == "" {
			continue
		}
		counts[seg]++
		best = max(best, counts[seg])
	}
	return best
}
