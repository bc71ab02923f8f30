package crawler

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/storage"
)

// TestFoundAfterGiveUpIsRetriedNextRun: a URL found after its origin's
// robots.txt was given up fails with the same "robots.txt unreachable
// after" reason as the URLs failed at the give-up, so the next run queues
// it again and, robots.txt answering now, fetches it. It failed with the
// bare reason ("HTTP 503") and stayed failed.
func TestFoundAfterGiveUpIsRetriedNextRun(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	dead := web.AddHost("dead", map[string]*crawltest.Page{
		"/robots.txt": {Status: 503},
		"/":           {Body: "dead"},
		"/late":       {Body: "late"},
	})
	// live/ answers after dead's robots.txt was given up, and links there.
	live := web.AddHost("live", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="{{host:dead}}/late">late</a>`, Delay: 300 * time.Millisecond},
	})
	path := filepath.Join(t.TempDir(), "state.db")
	cfg := testConfig(dead.URL("/"), live.URL("/"))
	cfg.RobotsRetries = -1 // `run --robots-retries 0`
	run := func() map[string]*storage.URLRecord {
		t.Helper()
		db := openDB(t, path)
		defer db.Close()
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := c.Run(ctx); err != nil || ctx.Err() != nil {
			t.Fatalf("run: %v %v", err, ctx.Err())
		}
		return records(t, db)
	}
	recs := run()
	for _, u := range []string{dead.URL("/"), dead.URL("/late")} {
		if r := recs[u]; r == nil || r.State != storage.Failed || !strings.HasPrefix(r.Error, robotsGaveUpPrefix) {
			t.Errorf("%s after the first run: %+v, want failed with %q...", u, r, robotsGaveUpPrefix)
		}
	}
	dead.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nAllow: /\n"})
	recs = run()
	for _, u := range []string{dead.URL("/"), dead.URL("/late")} {
		if r := recs[u]; r == nil || r.State != storage.Fetched {
			t.Errorf("%s after the second run: %+v, want fetched", u, r)
		}
	}
}
