package crawler

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/storage"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBatchRunWithDeadRobots: with no robots.txt retries a batch ends at
// once, the dead host's URLs recorded failed with the reason; the next run
// asks again and, robots.txt now answering, crawls them.
func TestBatchRunWithDeadRobots(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	dead := web.AddHost("dead", map[string]*crawltest.Page{
		"/robots.txt": {Status: 503},
		"/":           {Body: `<a href="/a">a</a>`},
		"/a":          {Body: "a"},
	})
	live := web.AddTree("live", 5, "User-agent: *\nAllow: /\n", 0)
	path := filepath.Join(t.TempDir(), "state.db")
	cfg := testConfig(dead.URL("/"), dead.URL("/a"), live.URL("/"))
	cfg.RobotsRetries = -1 // `run --robots-retries 0`
	recs := runToEnd(t, path, cfg)
	for _, u := range []string{dead.URL("/"), dead.URL("/a")} {
		if r := recs[u]; r == nil || r.State != storage.Failed || !strings.Contains(r.Error, "robots.txt unreachable") {
			t.Errorf("%s after the first run: %+v", u, r)
		}
	}
	if n := dead.Count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt asked %d times with no retries", n)
	}
	dead.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nAllow: /\n"})
	recs = runToEnd(t, path, cfg)
	for _, u := range []string{dead.URL("/"), dead.URL("/a")} {
		if r := recs[u]; r == nil || r.State != storage.Fetched {
			t.Errorf("%s after the second run: %+v", u, r)
		}
	}
}

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
	recs := runToEnd(t, path, cfg)
	for _, u := range []string{dead.URL("/"), dead.URL("/late")} {
		if r := recs[u]; r == nil || r.State != storage.Failed || !strings.HasPrefix(r.Error, robotsGaveUpPrefix) {
			t.Errorf("%s after the first run: %+v, want failed with %q...", u, r, robotsGaveUpPrefix)
		}
	}
	dead.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nAllow: /\n"})
	recs = runToEnd(t, path, cfg)
	for _, u := range []string{dead.URL("/"), dead.URL("/late")} {
		if r := recs[u]; r == nil || r.State != storage.Fetched {
			t.Errorf("%s after the second run: %+v, want fetched", u, r)
		}
	}
}

// runToEnd runs a crawl of cfg on the state file at path until it ends
// (20 s at most) and returns its URL records.
func runToEnd(t *testing.T, path string, cfg Config) map[string]*storage.URLRecord {
	t.Helper()
	db := openDB(t, path)
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v %v", err, ctx.Err())
	}
	t.Logf("run took %v", time.Since(start))
	return records(t, db)
}

// TestNoticeWhenOnlyRobotsRetriesRemain: once every other host is done, a
// run waiting on robots.txt retries says so, once, naming the host.
func TestNoticeWhenOnlyRobotsRetriesRemain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		recrawl time.Duration
		hint    string
	}{
		{"batch", 0, "run --robots-retries 0 ends a batch now"},
		{"daemon", time.Hour, "the daemon keeps retrying as above"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			web := crawltest.NewWeb()
			defer web.Close()
			dead := web.AddHost("dead", map[string]*crawltest.Page{"/robots.txt": {Status: 500}, "/": {Body: "x"}})
			live := web.AddTree("live", 3, "User-agent: *\nAllow: /\n", 0)
			cfg := testConfig(dead.URL("/"), live.URL("/"))
			cfg.RobotsRetries, cfg.RobotsRetryBase, cfg.Recrawl = 2, 400*time.Millisecond, tc.recrawl
			var logs syncBuffer
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
			defer db.Close()
			var until func() bool // a batch run drains by itself
			if tc.recrawl > 0 {
				// A daemon never ends on its own: stopped once it said so.
				until = func() bool { return strings.Contains(logs.String(), "only waiting on unreachable robots.txt") }
			}
			runFor(t, db, cfg, 20*time.Second, until)
			notices := strings.Count(logs.String(), "only waiting on unreachable robots.txt")
			// One notice per retry wait (each names a new retry time),
			// never one per loop turn.
			if notices < 1 || notices > cfg.RobotsRetries {
				t.Errorf("%d notices, want 1 to %d:\n%s", notices, cfg.RobotsRetries, logs.String())
			}
			if !strings.Contains(logs.String(), dead.Authority()+" (retry 1 of 2 at") {
				t.Errorf("notice does not name the host and its retry:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), tc.hint) {
				t.Errorf("notice's hint is not %q:\n%s", tc.hint, logs.String())
			}
		})
	}
}
