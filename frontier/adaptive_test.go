package frontier

import (
	"math"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

const ms = time.Millisecond

func TestDelayWhy(t *testing.T) {
	s := time.Second
	for i, c := range []struct {
		def, max, crawl, rate, want time.Duration
		why                         string
	}{
		{1 * s, 60 * s, 0, 0, 1 * s, WhyDefault},
		{1 * s, 60 * s, 5 * s, 0, 5 * s, WhyCrawlDelay},
		{1 * s, 60 * s, 500 * ms, 0, 1 * s, WhyDefault},
		{1 * s, 60 * s, 2 * s, 10 * s, 10 * s, WhyRequestRate},
		{1 * s, 60 * s, 120 * s, 0, 60 * s, WhyMaxDelay},
		{0, 0, 0, 0, 0, WhyDefault},
	} {
		if got, why := DelayWhy(c.def, c.max, c.crawl, c.rate); got != c.want || why != c.why {
			t.Errorf("step %d: DelayWhy(%v, %v, %v, %v) = %v, %q, want %v, %q", i, c.def, c.max, c.crawl, c.rate, got, why, c.want, c.why)
		}
	}
}

// TestSpacing: the delay in force is the floor raised by latency ×
// smoothed TTFB and by the error delay, each capped, never below the
// floor (not even when the floor is above the cap: robots.txt's own
// Crawl-delay, already capped by max_delay, stands).
func TestSpacing(t *testing.T) {
	on := Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 5 * time.Second}
	sec := time.Second
	for i, c := range []struct {
		floor    time.Duration
		floorWhy string
		a        adaptive
		p        Adaptive
		want     time.Duration
		why      string
	}{
		{sec, WhyDefault, adaptive{}, on, sec, WhyDefault},                                                     // no sample yet
		{sec, WhyDefault, adaptive{ttfb: 50 * ms}, on, sec, WhyDefault},                                        // 500ms < floor
		{sec, WhyDefault, adaptive{ttfb: 300 * ms}, on, 3 * sec, WhyLatency},                                   // 10 × 300ms
		{sec, WhyDefault, adaptive{ttfb: 2 * sec}, on, 5 * sec, WhyLatency},                                    // capped
		{sec, WhyDefault, adaptive{ttfb: 300 * ms, errDelay: 4 * sec}, on, 4 * sec, WhyErrorBackoff},           // errors above latency
		{sec, WhyDefault, adaptive{errDelay: time.Minute}, on, 5 * sec, WhyErrorBackoff},                       // capped
		{8 * sec, WhyCrawlDelay, adaptive{ttfb: 2 * sec}, on, 8 * sec, WhyCrawlDelay},                          // never below the floor
		{sec, WhyRequestRate, adaptive{ttfb: 300 * ms, errDelay: 4 * sec}, Adaptive{}, sec, WhyRequestRate},    // off
		{100 * ms, WhyDefault, adaptive{ttfb: 10 * sec}, Adaptive{LatencyFactor: 10}, AdaptiveMax, WhyLatency}, // no Max: AdaptiveMax
	} {
		got, why := Spacing(c.floor, c.floorWhy, c.a, c.p)
		if got != c.want || why != c.why {
			t.Errorf("step %d: Spacing(%v, %+v) = %v %q, want %v %q", i, c.floor, c.a, got, why, c.want, c.why)
		}
	}
}

// TestSmoothedTTFB: a slower answer moves the smoothed time half way at
// once, a faster one an eighth of the way.
func TestSmoothedTTFB(t *testing.T) {
	var a adaptive
	for i, c := range []struct{ sample, want time.Duration }{
		{100 * ms, 100 * ms}, // the first sample is taken as it is
		{300 * ms, 200 * ms}, // half way up
		{40 * ms, 180 * ms},  // an eighth of the way down
		{0, 180 * ms},        // no sample: unchanged
		{180 * ms, 180 * ms},
	} {
		a.observe(c.sample)
		if a.ttfb != c.want {
			t.Errorf("step %d: observe(%v) = %v, want %v", i, c.sample, a.ttfb, c.want)
		}
	}
}

// TestAdaptiveHost drives one host through the Scheduler with a fake
// clock: its slot opens after the delay in force, which grows with its
// server's response time and doubles per error, comes back by halves on
// success, and never falls below the floor.
func TestAdaptiveHost(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetBackoff(Backoff{Base: time.Second, Max: time.Second, MaxHold: time.Hour})
	s.SetAdaptive(Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 10 * time.Second}, t0)
	s.SetIntervalWhy("h", 500*ms, WhyDefault, t0)
	s.SetWork("h", true, t0)
	now := t0
	type outcome int
	const (
		ok outcome = iota
		fail
		retryAfter
	)
	lat := "latency (10 × 110ms time to first byte)"
	for i, st := range []struct {
		ttfb    time.Duration
		out     outcome
		want    time.Duration // the delay in force afterwards
		why     string        // DelayReason right after the request
		waitFor time.Duration // from the request's start to its slot's opening
	}{
		{20 * ms, ok, 500 * ms, WhyDefault, 500*ms + Margin(500*ms)},          // a fast server: the floor
		{200 * ms, ok, 1100 * ms, lat, 1100*ms + Margin(1100*ms)},             // half way to 200ms, × 10
		{0, fail, 2200 * ms, WhyErrorBackoff, 2200*ms + Margin(2200*ms)},      // doubled, past the 1s hold
		{0, fail, 4400 * ms, WhyErrorBackoff, 4400*ms + Margin(4400*ms)},      // doubled again
		{110 * ms, ok, 2200 * ms, WhyErrorBackoff, 2200*ms + Margin(2200*ms)}, // halved
		{110 * ms, ok, 1100 * ms, lat, 1100*ms + Margin(1100*ms)},             // halved: back to latency
		{0, retryAfter, 2200 * ms, WhyRetryAfter, 30 * time.Second},           // Retry-After holds longer
	} {
		host, _, claimed := s.Next(now)
		if !claimed || host != "h" {
			t.Fatalf("step %d: not claimed at %v", i, now.Sub(t0))
		}
		s.Observe("h", st.ttfb, now)
		s.Done("h", now)
		switch st.out {
		case ok:
			s.Recovered("h", now)
		case fail:
			s.Fail("h", "HTTP 503", 0, now)
		case retryAfter:
			s.Fail("h", "HTTP 429", 30*time.Second, now)
		}
		if d, _ := s.Delay("h"); d != st.want {
			t.Errorf("step %d: delay %v, want %v", i, d, st.want)
		}
		if why := s.DelayReason("h", now); why != st.why {
			t.Errorf("step %d: reason %q, want %q", i, why, st.why)
		}
		open := s.OpenAt("h", now)
		if got := open.Sub(now); got != st.waitFor {
			t.Errorf("step %d: opens after %v, want %v", i, got, st.waitFor)
		}
		now = open
	}
}

// TestAdaptiveNeverBelowFloor: a fast server and many successes never
// bring the delay below what robots.txt and the configuration ask.
func TestAdaptiveNeverBelowFloor(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetAdaptive(Adaptive{LatencyFactor: 10, ErrorBackoff: true}, t0)
	s.SetIntervalWhy("h", 2*time.Second, WhyCrawlDelay, t0)
	for range 20 {
		s.Observe("h", ms, t0)
		s.Recovered("h", t0)
	}
	if d, why := s.Delay("h"); d != 2*time.Second || why != WhyCrawlDelay {
		t.Errorf("delay %v %q, want 2s from Crawl-delay", d, why)
	}
}

// TestAdaptiveSurvivesARestart: what the adaptive delay learnt of a host
// (its smoothed time to first byte, the delay its errors made) is in its
// record, and a restart from that record spaces the host as before the
// stop, its first request included, instead of starting again from the
// floor: a struggling server is not asked sooner because the crawler
// restarted. A record without it (an older file) restores the floor.
func TestAdaptiveSurvivesARestart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 30 * time.Second}
	for _, c := range []struct {
		name    string
		learn   func(s *Scheduler, now time.Time)
		want    time.Duration
		why     string
		dropped bool // the record read as a file from before
	}{
		{"latency", func(s *Scheduler, now time.Time) { s.Observe("h", 400*ms, now) }, 4 * time.Second, WhyLatency, false},
		{"errors", func(s *Scheduler, now time.Time) {
			s.Fail("h", "HTTP 503", 0, now)
			s.Fail("h", "HTTP 503", 0, now)
		}, 4 * time.Second, WhyErrorBackoff, false},
		{"older file", func(s *Scheduler, now time.Time) { s.Observe("h", 400*ms, now) }, time.Second, WhyDefault, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewScheduler()
			s.SetBackoff(Backoff{Base: time.Millisecond, Max: time.Millisecond, MaxHold: time.Hour})
			s.SetAdaptive(policy, t0)
			s.SetIntervalWhy("h", time.Second, WhyDefault, t0)
			s.SetWork("h", true, t0)
			if _, _, ok := s.Next(t0); !ok {
				t.Fatal("not claimed")
			}
			c.learn(s, t0)
			s.Done("h", t0)
			before, _ := s.Delay("h")
			rec := s.Record("h")
			if c.dropped {
				rec.TTFBMs, rec.ErrorDelayS = 0, 0
			}

			later := t0.Add(500 * ms)
			r := NewScheduler()
			r.SetAdaptive(policy, later)
			r.SetIntervalWhy("h", time.Second, WhyDefault, later)
			r.RestoreHost("h", rec, 1, false, later)
			r.SetWork("h", true, later)
			d, why := r.Delay("h")
			if d != c.want || why != c.why {
				t.Errorf("after the restart: delay %v (%s), want %v (%s); before it %v", d, why, c.want, c.why, before)
			}
			if open := r.OpenAt("h", later); open.Before(t0.Add(c.want)) {
				t.Errorf("first request after the restart at %v, %v after the last; want at least %v", open.Sub(t0), open.Sub(t0), c.want)
			}
		})
	}
}

// TestRestoredErrorDelayAboveMax: an error delay learnt under a larger
// max_delay and restored under a smaller one counts only up to the new
// Max, and the first success halves that, as it would had the errors been
// made under the new Max.
func TestRestoredErrorDelayAboveMax(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetAdaptive(Adaptive{ErrorBackoff: true, Max: 10 * time.Second}, t0)
	s.SetIntervalWhy("h", time.Second, WhyDefault, t0)
	s.RestoreHost("h", storage.HostRecord{LastRequest: t0, Interval: 1, ErrorDelayS: 40}, 1, false, t0)
	for i, want := range []time.Duration{10 * time.Second, 5 * time.Second, 2500 * ms, 1250 * ms, time.Second} {
		if i > 0 {
			s.Recovered("h", t0)
		}
		if d, _ := s.Delay("h"); d != want {
			t.Errorf("after %d successes: delay %v, want %v", i, d, want)
		}
	}
}

// TestInForce: the delay in force for a host record is the one a
// Scheduler restoring the record spaces the host by, its floor (the
// record's interval, or the one given when longer) raised by what the
// record keeps of the adaptive delay; what no duration can be, and a
// record from before these were kept, give the floor.
func TestInForce(t *testing.T) {
	on := Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 30 * time.Second}
	sec := time.Second
	for i, c := range []struct {
		floor time.Duration
		r     storage.HostRecord
		p     Adaptive
		want  time.Duration
	}{
		{sec, storage.HostRecord{}, on, sec},                                                 // nothing recorded
		{sec, storage.HostRecord{Interval: 2}, on, 2 * sec},                                  // the recorded floor
		{2 * sec, storage.HostRecord{Interval: 1}, on, 2 * sec},                              // the given one when longer
		{sec, storage.HostRecord{Interval: 1, TTFBMs: 400}, on, 4 * sec},                     // 10 × 400 ms
		{sec, storage.HostRecord{Interval: 1, ErrorDelayS: 4}, on, 4 * sec},                  // the error delay
		{sec, storage.HostRecord{Interval: 1, TTFBMs: 400, ErrorDelayS: 6}, on, 6 * sec},     // the larger of the two
		{sec, storage.HostRecord{Interval: 8, TTFBMs: 400}, on, 8 * sec},                     // never below the floor
		{sec, storage.HostRecord{Interval: 1, TTFBMs: 60_000}, on, 30 * sec},                 // capped
		{sec, storage.HostRecord{Interval: 1, TTFBMs: 400, ErrorDelayS: 4}, Adaptive{}, sec}, // off
		{sec, storage.HostRecord{Interval: 1, TTFBMs: -1, ErrorDelayS: math.NaN()}, on, sec}, // damaged
		{sec, storage.HostRecord{Interval: 1, ErrorDelayS: 1e300}, on, 30 * sec},             // too long: capped, not dropped
		// A day's error delay under a max_delay of a day (it has no upper
		// bound): read back as none, it spaced the host by its floor.
		{sec, storage.HostRecord{Interval: 1, ErrorDelayS: 86400}, Adaptive{ErrorBackoff: true, Max: 24 * time.Hour}, 24 * time.Hour},
	} {
		if got := c.p.InForce(c.floor, c.r); got != c.want {
			t.Errorf("step %d: InForce(%v, %+v) = %v, want %v", i, c.floor, c.r, got, c.want)
		}
	}
}

// TestInForceIsTheRestoredDelay: what InForce makes of a scheduler's
// record is the delay it was spacing the host by.
func TestInForceIsTheRestoredDelay(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 30 * time.Second}
	for i, learn := range []func(s *Scheduler){
		func(s *Scheduler) {},
		func(s *Scheduler) { s.Observe("h", 400*ms, t0) },
		func(s *Scheduler) { s.Fail("h", "HTTP 503", 0, t0); s.Fail("h", "HTTP 503", 0, t0) },
		func(s *Scheduler) { s.Observe("h", 250*ms, t0); s.Fail("h", "HTTP 503", 0, t0) },
	} {
		s := NewScheduler()
		s.SetBackoff(Backoff{Base: time.Millisecond, Max: time.Millisecond, MaxHold: time.Hour})
		s.SetAdaptive(policy, t0)
		s.SetIntervalWhy("h", time.Second, WhyDefault, t0)
		learn(s)
		want, _ := s.Delay("h")
		if got := policy.InForce(0, s.Record("h")); got != want {
			t.Errorf("step %d: InForce of the record = %v, the scheduler's delay %v", i, got, want)
		}
	}
}

// TestLearnFromAnotherOwner: a host takes what another process learnt of
// its server (a cluster shard's previous owner's record) in place of what
// this one knows, and is spaced by it from its next request on; a record
// that keeps nothing of it (an older node's, or a host at its floor)
// leaves the host as it is.
func TestLearnFromAnotherOwner(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 30 * time.Second}
	for _, c := range []struct {
		name string
		own  time.Duration // this process's smoothed time to first byte
		r    storage.HostRecord
		want time.Duration
		why  string
	}{
		{"latency", 0, storage.HostRecord{Interval: 1, TTFBMs: 400}, 4 * time.Second, WhyLatency},
		{"errors", 0, storage.HostRecord{Interval: 1, ErrorDelayS: 4}, 4 * time.Second, WhyErrorBackoff},
		{"in place of what it knew", 300 * ms, storage.HostRecord{Interval: 1, TTFBMs: 200}, 2 * time.Second, WhyLatency},
		{"nothing learnt there", 0, storage.HostRecord{Interval: 1}, time.Second, WhyDefault},
		{"nothing learnt there, something here", 300 * ms, storage.HostRecord{Interval: 1}, 3 * time.Second, WhyLatency},
		{"damaged", 0, storage.HostRecord{Interval: 1, TTFBMs: -400}, time.Second, WhyDefault},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewScheduler()
			s.SetAdaptive(policy, t0)
			s.SetIntervalWhy("h", time.Second, WhyDefault, t0)
			if c.own > 0 {
				s.Observe("h", c.own, t0)
			}
			s.SetWork("h", true, t0)
			if _, _, ok := s.Next(t0); !ok {
				t.Fatal("not claimed")
			}
			s.Done("h", t0)
			s.Learn("h", c.r, t0)
			if d, why := s.Delay("h"); d != c.want || why != c.why {
				t.Errorf("delay %v (%s), want %v (%s)", d, why, c.want, c.why)
			}
			if open := s.OpenAt("h", t0); open.Sub(t0) < c.want {
				t.Errorf("next request %v after the last, want %v at least", open.Sub(t0), c.want)
			}
		})
	}
}
