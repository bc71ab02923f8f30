package crawler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/storage"
)

// TestSeedSaysRecordedState: seeding a URL the crawl has a record of says
// "known" and the record in the words of why and the export (RecordWhy),
// so a URL skipped by a scope rule or disallowed is not taken for one
// fetched or queued (before: every such URL got a bare "known").
func TestSeedSaysRecordedState(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	const excluded = `scope: out of scope: excluded by scope.exclude_patterns[1] "18" (crawl.yaml:9)`
	err := db.Update(func(tx *storage.Tx) error {
		for _, r := range []*storage.URLRecord{
			{URL: "http://a.test/", State: storage.Fetched, Status: 200, FetchedAt: at},
			{URL: "http://a.test/p/18.html", State: storage.Skipped, Error: excluded},
			{URL: "http://a.test/private/x", State: storage.Disallowed, Error: "robots.txt: Disallow: /private/ (line 2)"},
		} {
			r.Links = []string{}
			if err := tx.PutURL(r, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Rules = scope.Config{Prefixes: []string{"http://a.test/"}}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []struct{ url, want string }{
		{"http://a.test/", "known: fetched (HTTP 200) at 2026-03-04T05:06:07Z"},
		{"http://a.test/p/18.html", "known: skipped: " + excluded},
		{"HTTP://A.TEST/private/x", "known: disallowed: robots.txt: Disallow: /private/ (line 2)"},
		{"http://a.test/new", "queued"},
		{"http://a.test/new", "known: queued"},
		{"http://b.test/", "out of scope"},
	} {
		res, err := c.AddSeedsOffline([]string{s.url})
		if err != nil || len(res) != 1 || res[0].URL != s.url || res[0].Outcome != s.want {
			t.Errorf("step %d: AddSeedsOffline(%s) = %+v, %v; want outcome %q", i, s.url, res, err, s.want)
		}
	}
}
