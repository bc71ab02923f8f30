package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/crawler/sitemap"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// TestReportedResultsAreDurable crawls with no delays and more workers than
// hosts, so that results come back while earlier ones are being committed
// and hosts are handed their next URL before their previous result is
// committed. Every outcome reported to Observe must already be in the state
// file when it is reported (a kill -9 then loses nothing reported), every
// host sees one request at a time, and every page is fetched once.
func TestReportedResultsAreDurable(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	const hosts, pages = 6, 40
	var names, scope []string
	for i := 0; i < hosts; i++ {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i, n := range names {
		h := w.AddTree(n, pages, "User-agent: *\nDisallow: /private/\n", 0, names[(i+1)%hosts])
		scope = append(scope, h.Authority())
	}
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := storage.Open(path, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := testConfig(w.Host("h0").URL("/"))
	cfg.Scope, cfg.DefaultDelay, cfg.Workers = scope, 0, 16
	reported := 0
	var notDurable []string
	cfg.Observe = func(e Event) {
		reported++
		db.View(func(tx *storage.Tx) error {
			rec, err := tx.GetURL(e.URL)
			if err != nil || rec == nil || string(rec.State) != e.State {
				notDurable = append(notDurable, fmt.Sprintf("%s reported %s, state file has %v", e.URL, e.State, rec))
			}
			return nil
		})
	}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(notDurable) > 0 {
		t.Errorf("%d of %d outcomes reported before they were committed, e.g. %v", len(notDurable), reported, notDurable[0])
	}
	if reported != hosts*pages {
		t.Errorf("%d outcomes reported, want %d", reported, hosts*pages)
	}
	for _, h := range w.Hosts() {
		if v := h.Violations(0, 0, nil); len(v) > 0 {
			t.Errorf("%v", v)
		}
		got := h.Paths()
		if want := append(crawltest.TreePaths(pages), "/robots.txt"); !slices.Equal(got, sorted(want)) {
			t.Errorf("%s: requested %v, want each page once: %v", h.Name, got, sorted(want))
		}
	}
	var fetched int
	db.View(func(tx *storage.Tx) error { fetched = tx.Counts()[storage.Fetched]; return nil })
	if fetched != hosts*pages {
		t.Errorf("%d pages fetched, want %d", fetched, hosts*pages)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestResultSize: what bounds results waiting for a commit (receivedMax)
// counts what they hold: a stored body, links, a robots.txt body and its
// rules, a sitemap's entries.
func TestResultSize(t *testing.T) {
	base := resultSize(result{})
	for _, tc := range []struct {
		name string
		r    result
		min  int
	}{
		{"body", result{gzBody: make([]byte, 10000)}, 10000},
		{"links", result{links: &frontier.Outlinks{URLs: []string{strings.Repeat("u", 500), strings.Repeat("v", 500)}}}, 1000},
		{"bad links", result{links: &frontier.Outlinks{Bad: []frontier.Unusable{{URL: strings.Repeat("b", 800), Reason: "r"}}}}, 800},
		{"robots.txt", result{robots: &robotscache.Result{Body: make([]byte, 400<<10)}}, 800 << 10},
		{"sitemap", result{entries: []sitemap.Entry{{URL: strings.Repeat("s", 700)}}}, 700},
	} {
		if got := resultSize(tc.r) - base; got < tc.min {
			t.Errorf("%s: counted %d bytes, want at least %d", tc.name, got, tc.min)
		}
	}
}
