package storage

import (
	"strings"
	"testing"
)

// TestRecordSizeBound: the value of a record, its content uses aside, is
// never longer than recordSize says, so appendRecord allocates it once.
func TestRecordSizeBound(t *testing.T) {
	full := fullRecord()
	full.ContentUse = nil
	odd := full
	odd.State, odd.DiscoveredVia = "a-state-this-version-does-not-know", "a-via-it-does-not-know"
	odd.Depth, odd.Status, odd.Bytes, odd.Fingerprint = -1<<62, 1<<62, -1<<62, 1<<63
	tests := []URLRecord{
		{URL: "http://a.test/", State: Queued, DiscoveredVia: "seed"},
		{URL: "http://a.test/x", State: Queued, DiscoveredVia: "link", Depth: 300, Parent: "http://a.test/", Links: []string{}},
		full,
		odd,
		{URL: "http://a.test/", State: Fetched, Links: strings.Split(strings.Repeat("http://a.test/a-long-link-path/", 100), "/")},
	}
	for i, r := range tests {
		v := appendRecord(nil, &r, 1<<40)
		f := presentFields(&r, 1<<40)
		var links []byte
		if r.Links != nil {
			links = appendLinks(nil, r.Links)
			if len(links) > linksSize(r.Links) {
				t.Errorf("step %d: links of %d bytes, linksSize says at most %d", i, len(links), linksSize(r.Links))
			}
			if z, ok := compressLinks(links); ok && len(links) > linksZThreshold {
				f, links = f&^fLinks|fLinksZ, z
			}
		}
		if n := recordSize(&r, f, len(links)); len(v) > n {
			t.Errorf("step %d: value of %d bytes, recordSize says at most %d", i, len(v), n)
		}
		want := 1.0 // the value
		if r.Links != nil {
			want++ // the links, encoded apart
		}
		if allocs := testing.AllocsPerRun(10, func() { appendRecord(nil, &r, 1<<40) }); !raceEnabled && i < 4 && allocs != want {
			t.Errorf("step %d: appendRecord made %v allocations, want %v", i, allocs, want)
		}
	}
}
