package frontier

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

func TestDelay(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		def, max, crawl, rate, want time.Duration
	}{
		{1 * s, 60 * s, 0, 0, 1 * s},           // nothing named: default
		{1 * s, 60 * s, 5 * s, 0, 5 * s},       // Crawl-delay longer
		{1 * s, 60 * s, 500e6, 0, 1 * s},       // Crawl-delay shorter than default: default is a floor
		{1 * s, 60 * s, 2 * s, 10 * s, 10 * s}, // Request-rate stricter
		{1 * s, 60 * s, 120 * s, 0, 60 * s},    // capped
		{0, 0, 0, 0, 0},                        // no delay at all
		{0, 0, 500 * s, 0, 500 * s},            // no cap
		{2 * s, 1 * s, 0, 0, 1 * s},            // cap applies to the default too
		{-1 * s, 60 * s, 0, 0, 0},              // never negative
	} {
		if got := Delay(c.def, c.max, c.crawl, c.rate); got != c.want {
			t.Errorf("Delay(%v, %v, %v, %v) = %v, want %v", c.def, c.max, c.crawl, c.rate, got, c.want)
		}
	}
}

func TestSchedulerSpacingAndInFlight(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetInterval("a", 2*time.Second, t0)
	s.SetInterval("b", 0, t0)
	s.SetWork("a", true, t0)
	s.SetWork("b", true, t0)

	type step struct {
		at       time.Duration // since t0
		wantHost string        // "" = nothing ready
		wantWait time.Duration
		done     string // host to call Done on after the step
	}
	steps := []step{
		{0, "a", 0, ""},  // both open; a sorts first
		{0, "b", 0, ""},  // b open too
		{0, "", -1, "b"}, // both in flight: nothing with work is ready
		{0, "b", 0, "b"}, // b has no delay
		{100 * time.Millisecond, "b", 0, "a"},
		{200 * time.Millisecond, "", 1820 * time.Millisecond, ""}, // a done at 100ms, its slot opens at 2s + 20ms margin; b in flight
		{300 * time.Millisecond, "", 1720 * time.Millisecond, "b"},
		{300 * time.Millisecond, "b", 0, ""},                      // b again
		{400 * time.Millisecond, "", 1620 * time.Millisecond, ""}, // a waits until 2.02s
		{2020 * time.Millisecond, "a", 0, ""},
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		h, wait, ok := s.Next(now)
		if !ok {
			h = ""
		}
		if h != st.wantHost || (!ok && wait != st.wantWait) {
			t.Fatalf("step %d: Next(+%v) = %q, %v, %v; want %q, wait %v", i, st.at, h, wait, ok, st.wantHost, st.wantWait)
		}
		if st.done != "" {
			s.Done(st.done, now)
		}
	}
}

func TestSchedulerHoldAndRestore(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	// The last request before a restart was 1s ago, interval 5s: 4s to wait.
	s.Restore("a", t0.Add(-time.Second), 5*time.Second)
	s.SetWork("a", true, t0)
	if _, wait, ok := s.Next(t0); ok || wait.Round(time.Millisecond) != 4*time.Second+Margin(5*time.Second) {
		t.Fatalf("after restore: wait %v ok %v, want 4s + margin", wait, ok)
	}
	// A Retry-After hold pushes it further.
	s.Hold("a", t0.Add(30*time.Second), t0)
	if _, wait, _ := s.Next(t0.Add(5 * time.Second)); wait != 25*time.Second {
		t.Fatalf("hold: wait %v, want 25s", wait)
	}
	if h, _, ok := s.Next(t0.Add(30 * time.Second)); !ok || h != "a" {
		t.Fatal("host not released after hold")
	}
	s.Done("a", t0.Add(31*time.Second))
	// A longer interval set live applies to the next request.
	s.SetInterval("a", 10*time.Second, t0.Add(31*time.Second))
	if _, wait, _ := s.Next(t0.Add(32 * time.Second)); wait < 7*time.Second {
		t.Fatalf("new interval: wait %v, want about 8s", wait)
	}
	if s.Waiting(t0.Add(32*time.Second)) != 1 {
		t.Error("one host should be waiting on politeness")
	}
}

func TestSchedulerNeverTwoInFlight(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetWork("a", true, t0)
	if _, _, ok := s.Next(t0); !ok {
		t.Fatal("first claim")
	}
	s.SetWork("a", true, t0) // more work arrives while in flight
	if h, _, ok := s.Next(t0.Add(time.Hour)); ok {
		t.Fatalf("claimed %q while a request is in flight", h)
	}
}

func mustDB(t testing.TB) *storage.DB {
	t.Helper()
	d, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestAdmit(t *testing.T) {
	scope, _ := hostScope([]string{"a.test"})
	a := NewAdmitter(scope, Limits{MaxDepth: 2, MaxPages: 6, MaxPagesPerHost: 5, MaxURLLength: 60, MaxRepeatedSegments: 2}, 0, nil)
	d := mustDB(t)
	cases := []struct {
		url    string
		depth  int
		queued bool
		state  storage.State // "" = not recorded
		reason string
	}{
		{"http://a.test/", 0, true, storage.Queued, ""},
		{"http://a.test/", 1, false, storage.Queued, ""}, // seen: unchanged
		{"http://b.test/", 0, false, "", ""},             // out of scope: not recorded
		{"http://a.test/deep", 3, false, storage.Skipped, "max_depth"},
		{"http://a.test/" + strings.Repeat("x", 60), 1, false, storage.Skipped, "longer than 60"},
		{"http://a.test/cal/x/cal/x/cal", 1, false, storage.Skipped, "repeats"},
		{"http://a.test/1", 1, true, storage.Queued, ""},
		{"http://a.test/2", 1, true, storage.Queued, ""},
		{"http://a.test/3", 1, true, storage.Queued, ""},
		{"http://a.test/4", 1, true, storage.Queued, ""},
		{"http://a.test/5", 1, false, storage.Skipped, "per-host page budget"},
	}
	for i, c := range cases {
		var queued bool
		err := d.Update(func(tx *storage.Tx) error {
			var err error
			queued, err = a.Admit(tx, Candidate{URL: c.url, Depth: c.depth, Via: "link"})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d.View(func(tx *storage.Tx) error {
			r, _ := tx.GetURL(c.url)
			state := storage.State("")
			if r != nil {
				state = r.State
			}
			if queued != c.queued || state != c.state || (c.reason != "" && !strings.Contains(r.Error, c.reason)) {
				t.Errorf("case %d %s: queued %v state %q record %+v; want %v %q %q", i, c.url, queued, state, r, c.queued, c.state, c.reason)
			}
			return nil
		})
	}
	// max_pages counts every admitted URL across hosts.
	scope2, _ := hostScope([]string{"a.test", "c.test"})
	a.SetScope(scope2)
	d.Update(func(tx *storage.Tx) error {
		q, _ := a.Admit(tx, Candidate{URL: "http://c.test/", Via: "seed"})
		if !q {
			t.Error("6th URL should be admitted")
		}
		q, _ = a.Admit(tx, Candidate{URL: "http://c.test/x", Via: "link"})
		if q {
			t.Error("7th URL passes max_pages 6")
		}
		return nil
	})
}

// BenchmarkFrontierQueued admits a frontier of N queued URLs over 1,000
// hosts, 5,000 per transaction (about the size of the crawler's commits:
// up to 256 results with their links), then schedules every host, and reports
// the peak live heap. The URLs live on disk, so it tracks the hosts, not
// N: compare the two sizes.
func BenchmarkFrontierQueued(b *testing.B) {
	for _, total := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("urls=%d", total), func(b *testing.B) { benchQueued(b, total) })
	}
}

func benchQueued(b *testing.B, total int) {
	const batch = 5_000
	// Live heap after a collection, sampled every 20 transactions: what
	// the frontier retains, not garbage awaiting the collector.
	var peak uint64
	sample := func() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
	}
	for b.Loop() {
		d := mustDB(b)
		hosts := make([]string, 1000)
		for i := range hosts {
			hosts[i] = fmt.Sprintf("h%d.test", i)
		}
		scope, _ := hostScope(hosts)
		a := NewAdmitter(scope, Limits{}, 0, nil)
		for start := 0; start < total; start += batch {
			d.Update(func(tx *storage.Tx) error {
				for i := start; i < start+batch; i++ {
					a.Admit(tx, Candidate{URL: fmt.Sprintf("http://h%d.test/page/%d", i%1000, i), Via: "link"})
				}
				return nil
			})
			if start/batch%20 == 0 {
				sample()
			}
		}
		s := NewScheduler()
		now := time.Now()
		d.View(func(tx *storage.Tx) error {
			return tx.QueuedHosts(func(h string, n int) error { s.SetWork(h, true, now); return nil })
		})
		if len(s.ready) != 1000 {
			b.Fatalf("%d hosts ready", len(s.ready))
		}
		sample()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-live-heap-MB")
}

func TestSchedulerSpacingCountsFromActualStart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetInterval("a", 50*time.Millisecond, t0)
	s.SetWork("a", true, t0)
	s.Next(t0)
	// Connecting took 6ms: the request left at +6ms.
	s.Started("a", t0.Add(6*time.Millisecond))
	s.Done("a", t0.Add(10*time.Millisecond))
	want := 46*time.Millisecond + Margin(50*time.Millisecond)
	if _, wait, _ := s.Next(t0.Add(10 * time.Millisecond)); wait.Round(time.Microsecond) != want {
		t.Fatalf("wait %v, want %v (50ms and the margin from the actual start)", wait, want)
	}
	// An earlier time never shortens the spacing.
	s.Started("a", t0)
	if _, wait, _ := s.Next(t0.Add(10 * time.Millisecond)); wait.Round(time.Microsecond) != want {
		t.Fatalf("wait %v after an earlier Started", wait)
	}
}

func TestSchedulerCountsPolitenessWait(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetInterval("a", time.Second, t0)
	s.SetWork("a", true, t0)
	s.Next(t0) // open at once: no wait
	s.Done("a", t0)
	if w := s.TakeWaited(); w != 0 {
		t.Errorf("first request waited %v", w)
	}
	s.Next(t0.Add(1500 * time.Millisecond)) // slot opened at 1s; the extra 0.5s was not politeness
	if w := s.TakeWaited(); w.Round(time.Millisecond) != time.Second+Margin(time.Second) {
		t.Errorf("waited %v, want 1s and the margin", w)
	}
}

// TestMargin pins the margin added to every spacing: 2% of the delay, at
// least 5 ms, at most 20 ms, and none without a delay.
func TestMargin(t *testing.T) {
	for _, tc := range []struct{ d, want time.Duration }{
		{0, 0},
		{-time.Second, 0},
		{time.Millisecond, 5 * time.Millisecond},
		{40 * time.Millisecond, 5 * time.Millisecond},
		{250 * time.Millisecond, 5 * time.Millisecond},
		{500 * time.Millisecond, 10 * time.Millisecond},
		{time.Second, 20 * time.Millisecond},
		{time.Minute, 20 * time.Millisecond},
	} {
		if got := Margin(tc.d); got != tc.want {
			t.Errorf("Margin(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}
