package storage

import "time"

// State is where a URL stands.
type State string

const (
	Queued     State = "queued"     // waiting in its host queue (or in flight)
	Fetched    State = "fetched"    // a response was recorded
	Disallowed State = "disallowed" // robots.txt forbids it; never fetched
	Failed     State = "failed"     // gave up after retries, or its host's robots.txt stayed unreachable
	Skipped    State = "skipped"    // a scope limit or trap guard refused it; Error says which
)

// States lists every State, in display order.
var States = []State{Queued, Fetched, Disallowed, Failed, Skipped}

// URLRecord is everything the crawl knows of one URL. Its JSON form is the
// export record.
type URLRecord struct {
	URL           string    `json:"url"`
	State         State     `json:"state"`
	Status        int       `json:"status"`
	Depth         int       `json:"depth"`
	DiscoveredVia string    `json:"discovered_via"`
	FetchedAt     time.Time `json:"fetched_at,omitzero"`
	ContentType   string    `json:"content_type"`
	Title         string    `json:"title"`
	NoIndex       bool      `json:"noindex"`
	NoFollow      bool      `json:"nofollow"`
	Links         []string  `json:"links"`
	Error         string    `json:"error"`
	// Beyond the pinned export fields:
	Parent       string    `json:"parent,omitempty"`   // the URL it was found on, or redirected from
	Attempts     int       `json:"attempts,omitempty"` // fetch attempts so far
	Redirects    int       `json:"redirects,omitempty"`
	Lastmod      time.Time `json:"lastmod,omitzero"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	Bytes        int64     `json:"bytes,omitempty"`
	LinksDropped int       `json:"links_dropped,omitempty"` // links past limits.max_links_per_page: counted, not queued
	CheckedAt    time.Time `json:"checked_at,omitzero"`     // last recrawl check, 304 included
	NextCheck    time.Time `json:"next_check,omitzero"`     // when the recrawl is due; CheckQueued while queued for it, zero if never scheduled
	// PayloadDigest is the WARC payload digest ("sha1:…") of the body
	// last fetched whole, when it was archived: a 304 on its recheck is
	// a revisit of that payload. Exported as payload_digest.
	PayloadDigest string `json:"payload_digest,omitempty"`
	// ContentUse is what the site said each use of the content may be (see
	// crawler/contentuse), by use: read from robots.txt, the response's
	// headers and its meta tags when the URL was last fetched. Exported as
	// content_use.
	ContentUse map[string]ContentUse `json:"content_use,omitempty"`
	// What the recheck schedule learns of the page (frontier/freshness):
	// Fingerprint is a 64-bit hash of the body last fetched whole (0:
	// none), by which a recheck tells a changed page from a 200 with
	// the same body; ChangeChecks, ChangeCount and ChangeMillis are the
	// checks since then, those that found a change, and the time they
	// covered in milliseconds (decayed: see freshness.Stats); Changefreq is its
	// sitemap's changefreq, a hint for its first recheck.
	Fingerprint  uint64 `json:"fingerprint,omitempty"`
	ChangeChecks int    `json:"change_checks,omitempty"`
	ChangeCount  int    `json:"change_count,omitempty"`
	ChangeMillis int64  `json:"change_ms,omitempty"`
	Changefreq   string `json:"changefreq,omitempty"`
}

// ContentUse is one use's answer: yes, no or unspecified, and the signal
// that gave it ("robots.txt line 3: Content-Signal", "header
// Content-Usage", ...; "" when unspecified).
type ContentUse struct {
	Value  string `json:"value"`
	Source string `json:"source,omitempty"`
}

// HostRecord is the politeness state of one authority (host[:port]) that
// must survive a restart.
type HostRecord struct {
	LastRequest time.Time `json:"last_request,omitzero"` // start of the last request sent
	Interval    float64   `json:"interval_s,omitempty"`  // the floor spacing last applied (robots.txt, config), seconds; the adaptive terms are below
	HoldUntil   time.Time `json:"hold_until,omitzero"`   // Retry-After or backoff hold
	Failures    int       `json:"failures,omitempty"`    // consecutive 5xx/429/timeouts
	Pages       int       `json:"pages,omitempty"`       // pages fetched, for the per-host budget
	LastError   string    `json:"last_error,omitempty"`
	IP          string    `json:"ip,omitempty"`     // the address its last connection went to: its IP group
	Paused      bool      `json:"paused,omitempty"` // paused by the operator until resumed
	// LastStatus is the HTTP status of its last answer to a page request
	// (0: none, or a file from before it was kept), so that status shows
	// it for a stopped crawl as it does live.
	LastStatus int `json:"last_status,omitempty"`
	// The adaptive delay's learnt state (frontier/adaptive.go): the
	// smoothed time to first byte and the delay the errors made, so a
	// restarted crawl keeps sparing a struggling server instead of
	// starting again from the floor. Files from before read as none.
	TTFBMs      float64 `json:"ttfb_ms,omitempty"`
	ErrorDelayS float64 `json:"error_delay_s,omitempty"`
	// The recheck schedule's part (frontier/freshness.Host): the
	// histogram of its pages' change rates, its new pages per day and
	// when that was counted, and what its schedule expects: the share
	// of its pages kept current and their mean recheck interval.
	Rates         []uint32  `json:"rates,omitempty"`
	NewPerDay     float64   `json:"new_per_day,omitempty"`
	NewAt         time.Time `json:"new_at,omitzero"`
	Freshness     float64   `json:"freshness,omitempty"`
	MeanIntervalS float64   `json:"mean_interval_s,omitempty"`
}

// RobotsRecord is the robots.txt state of one origin.
type RobotsRecord struct {
	FetchedAt time.Time `json:"fetched_at"`
	Outcome   string    `json:"outcome"` // parsed, unavailable, unreachable
	Status    int       `json:"status,omitempty"`
	Body      []byte    `json:"body,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	Error     string    `json:"error,omitempty"`
	Attempts  int       `json:"attempts,omitempty"` // consecutive unreachable fetches
	// GaveUp (written with an unreachable outcome): the retries ran out
	// (or the address was refused) and the origin's URLs failed; the next
	// run tries again from the first attempt. Nil in files from before it
	// was kept.
	GaveUp *bool `json:"gave_up,omitempty"`
	// The last parsed copy, kept while the file is unreachable (SPEC 1.2).
	GoodBody []byte    `json:"good_body,omitempty"`
	GoodAt   time.Time `json:"good_at,omitzero"`
}

// SitemapRecord is one sitemap file: discovered, read, or refused. The set
// of records is also the visited set that breaks index cycles.
type SitemapRecord struct {
	URL        string         `json:"url"`
	Host       string         `json:"host"`        // authority the file is on
	DeclaredBy string         `json:"declared_by"` // authority whose robots.txt named it (or the index chain's start)
	Parent     string         `json:"parent,omitempty"`
	Depth      int            `json:"depth"` // 0: named in robots.txt; n: under n indexes
	State      string         `json:"state"` // pending, read, failed, disallowed, skipped
	Format     string         `json:"format,omitempty"`
	Listed     int            `json:"listed"`             // entries in the file
	Accepted   int            `json:"accepted"`           // new URLs it queued (seen-before ones count in Dropped)
	Diverted   int            `json:"diverted,omitempty"` // new URLs in scope handed to the cluster node owning their host, which admits them
	Dropped    map[string]int `json:"dropped,omitempty"`
	Truncated  string         `json:"truncated,omitempty"`
	Error      string         `json:"error,omitempty"`
	Attempts   int            `json:"attempts,omitempty"`
	FetchedAt  time.Time      `json:"fetched_at,omitzero"`
}

// CheckQueued is the NextCheck of a page queued for its recheck: told
// apart from a page never scheduled (zero), so that redoing a recrawl
// schedule does not queue it twice.
var CheckQueued = time.Unix(1, 0).UTC()

// Scheduled reports whether r has a recheck due at a time (not queued for
// it, not unscheduled).
func (r *URLRecord) Scheduled() bool { return !r.NextCheck.IsZero() && !r.NextCheck.Equal(CheckQueued) }

// Recheckable reports whether r belongs on the recrawl schedule: a page
// fetched or failed, or disallowed after it was fetched (robots.txt
// changed before its recheck: rechecked so that it is fetched again once
// robots.txt allows it). A URL disallowed or skipped before any fetch is
// not.
func (r *URLRecord) Recheckable() bool {
	return r.State == Fetched || r.State == Failed || r.State == Disallowed && !r.FetchedAt.IsZero()
}

// ForgetResponse clears what the last response said of the page (status,
// content type, title, robots flags, links, size) for a page that may no
// longer be read; when it was fetched and its validators stay.
func (r *URLRecord) ForgetResponse() {
	r.Status, r.ContentType, r.Title, r.Bytes = 0, "", "", 0
	r.NoIndex, r.NoFollow, r.Links, r.LinksDropped = false, false, []string{}, 0
}
