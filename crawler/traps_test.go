package crawler

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// TestDefaultTrapGuards crawls an endless calendar and an ordinary blog
// with the default limits: the calendar stops within a year either side
// of today, each refusal recorded as skipped with its reason, and every
// page of the blog is fetched (issue 8, item 6).
func TestDefaultTrapGuards(t *testing.T) {
	today := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	web := crawltest.NewWeb()
	defer web.Close()
	cal := web.AddCalendar("club", today)
	blog, blogPaths := web.AddBlog("blog", today, 36, 50)

	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(cal.URL("/"), blog.URL("/"))
	cfg.Limits = frontier.DefaultLimits()
	cfg.DefaultDelay = 5 * time.Millisecond
	// A clock that reads today's date and runs at the real pace (the
	// schedule runs on it too).
	start := time.Now()
	cfg.Now = func() time.Time { return today.Add(time.Since(start)) }
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v %v", err, ctx.Err())
	}

	// The calendar: /, /about, /cal, then months back to 366 days ago and
	// ahead to 366 days on: 2025-11 ... 2027-11.
	var months []string
	for _, p := range cal.Paths() {
		if strings.HasPrefix(p, "/cal?month=") {
			months = append(months, strings.TrimPrefix(p, "/cal?month="))
		}
	}
	if len(months) != 25 || months[0] != "2025-11" || months[24] != "2027-11" {
		t.Errorf("calendar months fetched: %d, %q", len(months), months)
	}
	recs := records(t, db)
	for url, want := range map[string]string{
		cal.URL("/cal?month=2025-10"): "trap: calendar step to 2025-10, more than 366 days from today",
		cal.URL("/cal?month=2027-12"): "trap: date 2027-12 more than 366 days ahead",
	} {
		if r := recs[url]; r == nil || r.State != storage.Skipped || r.Error != want {
			t.Errorf("%s: %+v, want skipped %q", url, r, want)
		}
	}

	// The blog: every page, once; nothing it serves skipped.
	for _, p := range blogPaths {
		if n := blog.Count(p); n != 1 {
			t.Errorf("blog %s fetched %d times", p, n)
		}
	}
	for url, r := range recs {
		if r.State == storage.Skipped && strings.HasPrefix(url, blog.URL("/")) &&
			slices.Contains(blogPaths, strings.TrimPrefix(url, blog.URL(""))) {
			t.Errorf("blog page skipped: %s: %s", url, r.Error)
		}
	}
}
