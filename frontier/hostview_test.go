package frontier

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// TestHostViewDelayFrom: what a host's status says set its delay: the
// robots.txt line that won, the default, or the cap.
func TestHostViewDelayFrom(t *testing.T) {
	for i, c := range []struct {
		robots string
		want   string
		iv     time.Duration
	}{
		{"User-agent: *\nAllow: /\n", DelayDefault, time.Second},
		{"User-agent: *\nCrawl-delay: 0.5\n", DelayDefault, time.Second}, // below the default
		{"User-agent: *\nCrawl-delay: 3\n", DelayCrawlDelay, 3 * time.Second},
		{"User-agent: *\nRequest-rate: 1/5s\n", DelayRequestRate, 5 * time.Second},
		{"User-agent: *\nCrawl-delay: 2\nRequest-rate: 1/4s\n", DelayRequestRate, 4 * time.Second},
		{"User-agent: *\nCrawl-delay: 600\n", DelayCapped, time.Minute},
	} {
		f := New[string](Options{Delays: DelayPolicy{Default: time.Second, Max: time.Minute}})
		now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
		f.ApplyRobots("a.test", robots.Parse([]byte(c.robots)), "politecrawl", now)
		v := f.View("a.test", now)
		if v.DelayFrom != c.want || v.Interval != c.iv {
			t.Errorf("step %d: %q: delay %v from %q, want %v from %q", i, c.robots, v.Interval, v.DelayFrom, c.iv, c.want)
		}
	}
}

// TestHostViewHold: a failure's hold says whether backoff or the
// server's Retry-After set it, with the error and the last status; a
// success clears it.
func TestHostViewHold(t *testing.T) {
	f := New[string](Options{Delays: DelayPolicy{Default: time.Second}, Backoff: Backoff{Base: time.Second, Max: time.Minute, MaxHold: time.Hour}})
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f.Meet("a.test", now)
	f.Answered("a.test", 503)
	until := f.Fail("a.test", "HTTP 503", 0, now)
	v := f.View("a.test", now)
	if v.HoldWhy != HoldBackoff || !v.HoldUntil.Equal(until) || v.LastError != "HTTP 503" || v.Failures != 1 || v.LastStatus != 503 {
		t.Errorf("after a 503: %+v", v)
	}
	f.Fail("a.test", "HTTP 429", 10*time.Minute, now)
	if v := f.View("a.test", now); v.HoldWhy != HoldRetryAfter || v.HoldUntil != now.Add(10*time.Minute) || v.Failures != 2 {
		t.Errorf("after a 429 with Retry-After: 10 min: %+v", v)
	}
	f.Recovered("a.test", now)
	if v := f.View("a.test", now); v.HoldWhy != "" || v.Failures != 0 || v.LastError != "" {
		t.Errorf("after a success: %+v", v)
	}
}

// BenchmarkView100k is what a status snapshot costs the coordinator: the
// view of each of 100,000 hosts (the state file is read after, off it).
func BenchmarkView100k(b *testing.B) {
	f := New[string](Options{Delays: DelayPolicy{Default: time.Second}})
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i := range 100_000 {
		f.Meet(fmt.Sprintf("h%06d.test", i), now)
	}
	for b.Loop() {
		n := 0
		f.Views(now, func(_ string, v HostView) {
			if v.HasWork {
				n++
			}
		})
	}
}

// TestPauseHost: the operator's pause keeps a host with work from being
// offered, whatever its work does, survives a restart through its record,
// and resuming gives it its turn back.
func TestPauseHost(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	newF := func() *Frontier[string] { return New[string](Options{Delays: DelayPolicy{Default: time.Second}}) }
	f := newF()
	f.Meet("a.test", now)
	f.sched.Enqueued("a.test", "http://a.test/", 1, now)
	if f.PauseHost("b.test", true, now) {
		t.Error("PauseHost of a host the crawl never met reports it known")
	}
	if !f.PauseHost("a.test", true, now) {
		t.Fatal("PauseHost(a.test) reports it unknown")
	}
	f.setWork("a.test", now) // its work changing does not end the pause
	if h, wait, ok := f.sched.Next(now); ok || wait != -1 {
		t.Fatalf("paused: Next = %s, %v, %v; want nothing to do", h, wait, ok)
	}
	if v := f.View("a.test", now); !v.Stopped {
		t.Errorf("view of a paused host: %+v", v)
	}
	rec := f.Record("a.test")
	if !rec.Paused {
		t.Fatalf("record of a paused host: %+v", rec)
	}
	g := newF() // a restart
	g.Meet("a.test", now)
	g.sched.RestoreHost("a.test", rec, 1, false, now)
	if _, _, ok := g.sched.Next(now); ok {
		t.Error("after a restart the paused host is offered")
	}
	g.PauseHost("a.test", false, now)
	if h, _, ok := g.sched.Next(now); !ok || h != "a.test" {
		t.Errorf("resumed: Next = %q, %v; want a.test", h, ok)
	}
}

// TestLastStatusSurvivesInTheRecord: a host's last answer's HTTP status
// is in its record, so that status shows it for a stopped crawl as it
// does live, and a restarted crawl shows it before its next answer.
func TestLastStatusSurvivesInTheRecord(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	newF := func() *Frontier[string] { return New[string](Options{Delays: DelayPolicy{Default: time.Second}}) }
	f := newF()
	f.Meet("a.test", now)
	f.Answered("a.test", 200)
	f.Answered("a.test", 404)
	rec := f.Record("a.test")
	if rec.LastStatus != 404 {
		t.Fatalf("record after a 404: LastStatus %d", rec.LastStatus)
	}
	g := newF() // a restart
	g.Meet("a.test", now)
	g.sched.RestoreHost("a.test", rec, 0, false, now)
	if v := g.View("a.test", now); v.LastStatus != 404 {
		t.Errorf("restored host's view: LastStatus %d, want 404", v.LastStatus)
	}
}

// TestLearnTakesTheLastStatus: a cluster shard's new owner shows the
// status of the host's last answer the previous owner recorded, with or
// without anything the adaptive delay learnt, until the host answers it;
// a record without one (an older node's) leaves what it showed.
func TestLearnTakesTheLastStatus(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		own  int // the status this process last saw, 0: none
		r    storage.HostRecord
		want int
	}{
		{"a host met here first", 0, storage.HostRecord{Interval: 1, LastStatus: 503}, 503},
		{"with a learnt latency", 0, storage.HostRecord{Interval: 1, TTFBMs: 400, LastStatus: 404}, 404},
		{"in place of an older answer here", 200, storage.HostRecord{Interval: 1, LastStatus: 503}, 503},
		{"none there (an older node)", 200, storage.HostRecord{Interval: 1, TTFBMs: 400}, 200},
		{"none anywhere", 0, storage.HostRecord{Interval: 1}, 0},
	} {
		f := New[string](Options{Delays: DelayPolicy{Default: time.Second}})
		if c.own != 0 {
			f.Meet("a.test", now)
			f.Answered("a.test", c.own)
		}
		f.Learn("a.test", c.r, now)
		if v := f.View("a.test", now); v.LastStatus != c.want {
			t.Errorf("%s: LastStatus %d, want %d", c.name, v.LastStatus, c.want)
		}
		if got := f.Record("a.test").LastStatus; got != c.want {
			t.Errorf("%s: recorded LastStatus %d, want %d", c.name, got, c.want)
		}
	}
}
