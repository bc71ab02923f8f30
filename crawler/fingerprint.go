package crawler

import (
	"hash/fnv"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/storage"
)

// bodyFingerprint is a 64-bit FNV-1a hash of a 2xx response's whole body,
// never 0; 0 for any other response. The recheck schedule tells a page
// that changed from one served again unchanged by it (a 200 without
// validators is not a change), with or without WARC output.
func bodyFingerprint(p *fetch.Response) uint64 {
	if p.Status < 200 || p.Status >= 300 || p.Truncated {
		return 0
	}
	h := fnv.New64a()
	h.Write(p.Body)
	return max(h.Sum64(), 1)
}

// lastSeen is when a page was last fetched or confirmed unchanged; zero
// for a page never fetched.
func lastSeen(rec *storage.URLRecord) time.Time {
	if rec.CheckedAt.After(rec.FetchedAt) {
		return rec.CheckedAt
	}
	return rec.FetchedAt
}
