package crawler

import (
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// hostCountsAgree: status's per-host URLs by outcome are the export's
// records counted by host, and add up to status's totals.
func hostCountsAgree(t *testing.T, db *storage.DB, recs map[string]*storage.URLRecord) {
	t.Helper()
	want := map[string]storage.StateCounts{}
	for _, r := range recs {
		h := urlnorm.Authority(r.URL)
		c := want[h]
		switch r.State {
		case storage.Fetched:
			c.Fetched++
		case storage.Disallowed:
			c.Disallowed++
		case storage.Failed:
			c.Failed++
		case storage.Skipped:
			c.Skipped++
		}
		want[h] = c
	}
	st, err := status.Read(db, time.Now(), frontier.Adaptive{})
	if err != nil {
		t.Fatal(err)
	}
	var sum storage.StateCounts
	listed := map[string]bool{}
	for _, h := range st.PerHost {
		listed[h.Host] = true
		if h.StateCounts != want[h.Host] {
			t.Errorf("status says %s has %+v, its records %+v", h.Host, h.StateCounts, want[h.Host])
		}
		sum.Fetched += h.Fetched
		sum.Disallowed += h.Disallowed
		sum.Failed += h.Failed
		sum.Skipped += h.Skipped
	}
	for h, c := range want {
		if !listed[h] && c != (storage.StateCounts{}) {
			t.Errorf("%s has records %+v but no line in status", h, c)
		}
	}
	if total := (storage.StateCounts{Fetched: st.Fetched, Disallowed: st.Disallowed, Failed: st.Failed, Skipped: st.Skipped}); sum != total {
		t.Errorf("per-host counts add up to %+v, the totals are %+v", sum, total)
	}
}
