package status

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// TestRead: what status shows of a state file no crawl holds: counts,
// each host's queue, spacing, robots.txt outcomes per origin (with their
// age), last error, last HTTP status and sitemap files, hosts in name
// order, and a host the operator paused as paused.
func TestRead(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := db.Update(func(tx *storage.Tx) error {
		for _, u := range []string{"http://b.test/1", "http://b.test/2"} {
			if err := tx.PutURL(&storage.URLRecord{URL: u, State: storage.Queued, Links: []string{}}, ""); err != nil {
				return err
			}
			if err := tx.Enqueue("b.test", u); err != nil {
				return err
			}
		}
		if err := tx.PutURL(&storage.URLRecord{URL: "http://a.test/", State: storage.Fetched, Status: 200, Links: []string{}}, ""); err != nil {
			return err
		}
		if err := tx.PutHost("a.test", storage.HostRecord{Interval: 2, LastError: "HTTP 503", IP: "192.0.2.1", LastStatus: 404}); err != nil {
			return err
		}
		if err := tx.PutHost("b.test", storage.HostRecord{Paused: true}); err != nil {
			return err
		}
		if err := tx.PutRobots("http://a.test", &storage.RobotsRecord{Outcome: "parsed", Status: 200, FetchedAt: now.Add(-time.Minute)}); err != nil {
			return err
		}
		if err := tx.PutRobots("https://a.test", &storage.RobotsRecord{Outcome: "unavailable", Status: 404, FetchedAt: now}); err != nil {
			return err
		}
		for _, sm := range []*storage.SitemapRecord{
			{URL: "http://a.test/s1.xml", Host: "a.test", State: "read", Listed: 5, Accepted: 3, Dropped: map[string]int{"invalid URL": 2}},
			{URL: "http://a.test/s2.xml", Host: "a.test", State: "pending"},
			{URL: "http://a.test/s3.xml", Host: "a.test", State: "failed"},
		} {
			if err := tx.PutSitemap(sm); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, err := Read(db, now, frontier.Adaptive{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Running || st.Queued != 2 || st.Fetched != 1 || st.Hosts != 2 || len(st.PerHost) != 2 {
		t.Fatalf("status %+v", st)
	}
	a, b := st.PerHost[0], st.PerHost[1]
	if a.Host != "a.test" || b.Host != "b.test" {
		t.Fatalf("hosts %s, %s: want a.test, b.test in order", a.Host, b.Host)
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"a's interval", a.IntervalS, 2.0},
		{"a's last error", a.LastError, "HTTP 503"},
		{"a's IP", a.IP, "192.0.2.1"},
		{"a's last status", a.LastStatus, 404},
		{"a's robots.txt", a.Robots, "parsed (200), unavailable (404)"},
		{"a's sitemaps", *a.Sitemaps, Sitemaps{Read: 1, Pending: 1, Refused: 1, Listed: 5, Accepted: 3, Dropped: map[string]int{"invalid URL": 2}}},
		{"a's URLs by outcome", a.StateCounts, storage.StateCounts{Fetched: 1}},
		{"b's queue", b.Queued, 2},
		{"b's robots.txt", b.Robots, "unknown"},
		// Stopped, only the operator's pause is a state.
		{"a's state", a.State, ""},
		{"b's state (paused by the operator)", b.State, StatePaused},
		{"b's why", b.Why, WhyOperator},
	} {
		if g, w := c.got, c.want; !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %v, want %v", c.what, g, w)
		}
	}
}

// TestReadFreshness: the recheck schedule's figures: rechecks due within
// the hour, and the mean interval and estimated freshness over the pages
// on the schedule, weighted by each host's pages.
func TestReadFreshness(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := db.Update(func(tx *storage.Tx) error {
		if err := tx.PutURL(&storage.URLRecord{URL: "http://a.test/", State: storage.Fetched, Links: []string{}}, ""); err != nil {
			return err
		}
		for _, d := range []time.Duration{-time.Minute, 30 * time.Minute, 59 * time.Minute, 2 * time.Hour} {
			if err := tx.ScheduleDue(storage.Due{At: now.Add(d), Kind: storage.DuePage, URL: "http://a.test/" + d.String()}); err != nil {
				return err
			}
		}
		if err := tx.PutHost("a.test", storage.HostRecord{Rates: []uint32{1, 0, 2}, Freshness: 0.9, MeanIntervalS: 3600}); err != nil {
			return err
		}
		return tx.PutHost("b.test", storage.HostRecord{Rates: []uint32{0, 1}, Freshness: 0.5, MeanIntervalS: 7200})
	}); err != nil {
		t.Fatal(err)
	}
	st, err := Read(db, now, frontier.Adaptive{})
	if err != nil {
		t.Fatal(err)
	}
	if st.RechecksNextHour != 3 || st.Recrawls != 4 {
		t.Errorf("rechecks within the hour %d of %d, want 3 of 4", st.RechecksNextHour, st.Recrawls)
	}
	if math.Abs(st.MeanIntervalS-4500) > 1e-9 || math.Abs(st.EstimatedFreshness-0.8) > 1e-9 {
		t.Errorf("mean interval %gs, freshness %g; want 4500s (3 pages at 1h, 1 at 2h) and 0.8", st.MeanIntervalS, st.EstimatedFreshness)
	}
	if h := st.PerHost[0]; h.RecheckPages != 3 || h.EstimatedFreshness != 0.9 || h.MeanIntervalS != 3600 {
		t.Errorf("a.test: %+v", h)
	}
}

// TestReadDelayInForce: a host's delay in a state file's status is the
// one a restart spaces it by: its recorded floor raised by what the
// adaptive delay learnt of its server, as the crawl's policy makes it; a
// record from before these were kept, or the adaptive delay off, shows
// the floor.
func TestReadDelayInForce(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	records := map[string]storage.HostRecord{
		"floor.test":   {Interval: 2},
		"latency.test": {Interval: 1, TTFBMs: 400},
		"errors.test":  {Interval: 1, ErrorDelayS: 8},
		"capped.test":  {Interval: 1, TTFBMs: 5000},
	}
	if err := db.Update(func(tx *storage.Tx) error {
		for h, r := range records {
			if err := tx.PutHost(h, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	on := frontier.Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 30 * time.Second}
	for _, c := range []struct {
		name   string
		policy frontier.Adaptive
		want   map[string]float64
	}{
		{"adaptive", on, map[string]float64{"floor.test": 2, "latency.test": 4, "errors.test": 8, "capped.test": 30}},
		{"off", frontier.Adaptive{}, map[string]float64{"floor.test": 2, "latency.test": 1, "errors.test": 1, "capped.test": 1}},
	} {
		st, err := Read(db, time.Now(), c.policy)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, h := range st.PerHost {
			got[h.Host] = h.IntervalS
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: interval_s by host %v, want %v", c.name, got, c.want)
		}
	}
}
