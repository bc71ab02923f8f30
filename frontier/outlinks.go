package frontier

import (
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// A page's links are normalised where the page was parsed (a worker:
// normalising is the costly part of a link-heavy page, and the coordinator
// serves every host), and admitted by the Frontier. Links that cannot be
// normalised are recorded as skipped with the reason, up to a bound.

// maxBadLinks bounds how many unusable links of one page are recorded as
// skipped; the rest are only counted.
const maxBadLinks = 100

// UnusablePrefix is how much of an unusable link a skipped record keeps.
const UnusablePrefix = 2048

// Outlinks is a page's links as admission takes them.
type Outlinks struct {
	URLs    []string   // normalised, deduplicated, in document order, at most the cap
	Dropped int        // links past the cap: counted, not queued
	Bad     []Unusable // links that could not be normalised (at most maxBadLinks)
	BadMore int        // further unusable links, counted only
}

// Unusable is a link recorded as skipped instead of queued.
type Unusable struct {
	URL    string // the link as found, cut to UnusablePrefix bytes
	Reason string
}

// AddBad notes an unusable link (counted only past maxBadLinks).
func (o *Outlinks) AddBad(link, reason string) {
	if len(o.Bad) >= maxBadLinks {
		o.BadMore++
		return
	}
	if len(link) > UnusablePrefix {
		link = link[:UnusablePrefix] + "..."
	}
	o.Bad = append(o.Bad, Unusable{URL: link, Reason: reason})
}

// Normalise adds links, as found in a page, in document order: at most
// maxLinks distinct normal URLs; past that they are counted, not
// normalised.
func (o *Outlinks) Normalise(links []string, maxLinks int) {
	if o.URLs == nil {
		o.URLs = make([]string, 0, min(len(links), maxLinks))
	}
	seen := make(map[string]struct{}, min(len(links), maxLinks))
	for _, u := range o.URLs {
		seen[u] = struct{}{}
	}
	for i, l := range links {
		if len(o.URLs) >= maxLinks {
			o.Dropped += len(links) - i
			return
		}
		n, err := urlnorm.Normalise(l)
		if err != nil {
			o.AddBad(l, "unusable link: "+err.Error())
			continue
		}
		if _, dup := seen[n]; dup {
			continue
		}
		seen[n] = struct{}{}
		o.URLs = append(o.URLs, n)
	}
}

// RecordUnusable records a page's unusable links as skipped, each once,
// found on parent at depth.
func RecordUnusable(tx *storage.Tx, parent string, depth int, bad []Unusable) error {
	for _, b := range bad {
		if tx.Seen(b.URL) {
			continue
		}
		rec := &storage.URLRecord{URL: b.URL, State: storage.Skipped, Error: b.Reason, Depth: depth,
			DiscoveredVia: "link", Parent: parent, Links: []string{}}
		if err := tx.PutURL(rec, ""); err != nil {
			return err
		}
	}
	return nil
}
