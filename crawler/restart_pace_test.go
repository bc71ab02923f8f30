package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/storage"
)

// TestRestartPaceOfTheSlowerOrigin: a host with two origins (http and
// https) whose robots.txt differ is spaced after a restart by the slower
// one's Crawl-delay, whatever order the origins come back in (it took
// either at random: 50 ms 22 times in 30 against a Crawl-delay of 10 s).
func TestRestartPaceOfTheSlowerOrigin(t *testing.T) {
	got := map[time.Duration]int{}
	for i := 0; i < 10; i++ {
		path := filepath.Join(t.TempDir(), "s.db")
		db := openDB(t, path)
		now := time.Now()
		if err := db.Update(func(tx *storage.Tx) error {
			if err := tx.PutHost("h.example", storage.HostRecord{LastRequest: now.Add(-time.Minute), Interval: 10}); err != nil {
				return err
			}
			if err := tx.PutRobots("https://h.example", &storage.RobotsRecord{FetchedAt: now.Add(-time.Hour), Outcome: "parsed", Status: 200,
				Body: []byte("User-agent: *\nCrawl-delay: 10\n"), ExpiresAt: now.Add(time.Hour)}); err != nil {
				return err
			}
			return tx.PutRobots("http://h.example", &storage.RobotsRecord{FetchedAt: now.Add(-time.Hour), Outcome: "unavailable", Status: 404,
				ExpiresAt: now.Add(time.Hour)})
		}); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig()
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got[c.front.Interval("h.example")]++
		db.Close()
	}
	if len(got) != 1 || got[5*time.Second] != 10 {
		t.Errorf("intervals after 10 restarts: %v, want 5s every time (https's Crawl-delay: 10, capped by the test config's max_delay)", got)
	}
}

// TestRestartGoodCopyPace: robots.txt unreachable before the stop, its
// last good copy (Crawl-delay 4) standing in: after a restart the host
// keeps that delay (it fell to the default: the restored origin has no
// rules until its file is read again).
func TestRestartGoodCopyPace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db := openDB(t, path)
	defer db.Close()
	now := time.Now()
	if err := db.Update(func(tx *storage.Tx) error {
		if err := tx.PutHost("h.example", storage.HostRecord{LastRequest: now.Add(-time.Minute), Interval: 4}); err != nil {
			return err
		}
		return tx.PutRobots("https://h.example", &storage.RobotsRecord{FetchedAt: now.Add(-time.Minute), Outcome: "unreachable", Status: 503,
			Error: "HTTP 503", Attempts: 1, ExpiresAt: now.Add(time.Hour),
			GoodBody: []byte("User-agent: *\nCrawl-delay: 4\n"), GoodAt: now.Add(-time.Hour)})
	}); err != nil {
		t.Fatal(err)
	}
	c, err := New(db, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if iv := c.front.Interval("h.example"); iv != 4*time.Second {
		t.Errorf("interval after restart %v, want 4s (the good copy's Crawl-delay)", iv)
	}
}

// TestRestartGoodCopyRequests: the same on the wire. After a restart the
// file still answers 503, the good copy stands in again, and no two
// requests come closer than its Crawl-delay (they came about 56 ms apart).
func TestRestartGoodCopyRequests(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nCrawl-delay: 1\nAllow: /\n"},
		"/":           {Body: `x`},
		"/a":          {Body: `a`},
		"/b":          {Body: `b`},
		"/c":          {Body: `c`},
	})
	path := filepath.Join(t.TempDir(), "s.db")
	db := openDB(t, path)
	cfg := testConfig(h.URL("/"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	// As recordRobots writes it when the file became unreachable and the
	// good copy stands in (outcome unreachable, good body kept).
	origin := strings.TrimSuffix(h.URL(""), "/")
	if err := db.Update(func(tx *storage.Tx) error {
		r, err := tx.GetRobots(origin)
		if err != nil || r == nil {
			return fmt.Errorf("robots record %v: %v", origin, err)
		}
		r.GoodBody, r.GoodAt = r.Body, r.FetchedAt
		r.Outcome, r.Status, r.Body, r.Error, r.Attempts = "unreachable", 503, nil, "HTTP 503", 1
		return tx.PutRobots(origin, r)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	h.SetPage("/robots.txt", &crawltest.Page{Status: 503})
	before := len(h.Log())
	db = openDB(t, path)
	defer db.Close()
	cfg.Seeds = []string{h.URL("/a"), h.URL("/b"), h.URL("/c")}
	cfg.RobotsRetries = 0
	c2, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Run(ctx); err != nil {
		t.Fatal(err)
	}
	var last time.Time
	for _, r := range h.Log()[before:] {
		t.Logf("%s %s", r.Arrived.Format("15:04:05.000"), r.Path)
		if !last.IsZero() && r.Arrived.Sub(last) < time.Second-crawltest.Slack {
			t.Errorf("%s only %v after the previous request; robots.txt's good copy says Crawl-delay 1", r.Path, r.Arrived.Sub(last))
		}
		last = r.Arrived
	}
}
