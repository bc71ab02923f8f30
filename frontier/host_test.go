package frontier

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// hostOp is one thing the crawler tells the Scheduler about a host.
type hostOp struct {
	enqueue  string // a URL queued in the batch being built (seq: 100+op index)
	take     bool   // the head is handed out (Next, Take)
	record   bool   // the oldest taken URL is recorded and dequeued (Removed, Returned, Done)
	settle   bool   // the head is settled without a request (Removed, Settled, Cancel)
	waitFor  uint64 // its next URLs are in batch waitFor, being committed
	commit   uint64 // batches up to commit are in the state file
	dropped  int    // URLs removed out of order, visible after batch dropGen
	dropGen  uint64
	fail     string // a failed request (Fail)
	recover  bool   // a request succeeded (Recovered)
	hasOther bool   // SetWork(true): a sitemap or robots.txt hop
}

// TestHost is the table test of a host's state: its queue counts and
// in-memory head, whether it has work it can start (the schedule offers
// it), its backoff, and the record that survives a restart. Each case runs
// its operations on one host with no spacing, in order, at one instant
// per operation.
func TestHost(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	many := func(n int) []hostOp {
		var ops []hostOp
		for i := range n {
			ops = append(ops, hostOp{enqueue: fmt.Sprint("u", i)})
		}
		return ops
	}
	firstN := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprint("u", i))
		}
		return s
	}
	cases := []struct {
		name     string
		restored int // URLs queued in the state file at start, not in memory
		ops      []hostOp
		ahead    []string // the in-memory head, in order
		queued   int
		taken    int
		ready    bool // the schedule offers the host now
		failures int
	}{
		{name: "new host has no work"},
		{name: "queued URLs join a whole head", ops: []hostOp{{enqueue: "a"}, {enqueue: "b"}},
			ahead: []string{"a", "b"}, queued: 2, ready: true},
		{name: "taking drops the head, counts stay until recorded",
			ops:   []hostOp{{enqueue: "a"}, {enqueue: "b"}, {take: true}},
			ahead: []string{"b"}, queued: 2, taken: 1},
		{name: "recording frees the slot for the next URL",
			ops:   []hostOp{{enqueue: "a"}, {enqueue: "b"}, {take: true}, {record: true}},
			ahead: []string{"b"}, queued: 1, ready: true},
		{name: "recording the last URL leaves no work",
			ops:    []hostOp{{enqueue: "a"}, {take: true}, {record: true}},
			queued: 0},
		{name: "queuing while a URL is taken keeps the head whole",
			ops:   []hostOp{{enqueue: "a"}, {take: true}, {enqueue: "b"}, {record: true}, {enqueue: "c"}},
			ahead: []string{"b", "c"}, queued: 2, ready: true},
		{name: "settling drops the head without a request",
			ops:   []hostOp{{enqueue: "a"}, {enqueue: "b"}, {settle: true}},
			ahead: []string{"b"}, queued: 1, ready: true},
		{name: "settling while another URL is taken",
			ops:   []hostOp{{enqueue: "a"}, {enqueue: "b"}, {enqueue: "c"}, {take: true}, {record: true}, {settle: true}},
			ahead: []string{"c"}, queued: 1, ready: true},
		{name: "a head missing URLs of the state file is not extended", restored: 2,
			ops:    []hostOp{{enqueue: "a"}},
			queued: 3, ready: true},
		{name: "memory per host is bounded", ops: many(AheadMax + 3),
			ahead: firstN(AheadMax), queued: AheadMax + 3, ready: true},
		{name: "URLs only in a batch being committed are not offered", restored: 1,
			ops:    []hostOp{{waitFor: 7}},
			queued: 1},
		{name: "and are offered once it commits", restored: 1,
			ops:    []hostOp{{waitFor: 7}, {commit: 6}, {commit: 7}},
			queued: 1, ready: true},
		{name: "URLs dropped out of order: stale head forgotten until their batch commits",
			ops:    []hostOp{{enqueue: "a"}, {enqueue: "b"}, {enqueue: "c"}, {dropped: 2, dropGen: 3}},
			queued: 1},
		{name: "dropped, then committed",
			ops:    []hostOp{{enqueue: "a"}, {enqueue: "b"}, {enqueue: "c"}, {dropped: 2, dropGen: 3}, {commit: 3}},
			queued: 1, ready: true},
		{name: "other work without a queue", ops: []hostOp{{hasOther: true}}, ready: true},
		{name: "a failure holds the host", ops: []hostOp{{enqueue: "a"}, {fail: "HTTP 503"}},
			ahead: []string{"a"}, queued: 1, failures: 1},
		{name: "failures count up and a success ends them",
			ops:   []hostOp{{enqueue: "a"}, {fail: "HTTP 503"}, {fail: "timeout"}, {recover: true}},
			ahead: []string{"a"}, queued: 1, failures: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScheduler()
			s.SetBackoff(Backoff{Base: time.Hour, Max: time.Hour, MaxHold: time.Hour})
			now := t0
			if tc.restored > 0 {
				s.RestoreHost("h", storage.HostRecord{}, tc.restored, false, now)
			}
			for i, o := range tc.ops {
				now = now.Add(time.Millisecond)
				seq := uint64(100 + i)
				switch {
				case o.enqueue != "":
					s.Enqueued("h", o.enqueue, seq, now)
				case o.take:
					head, ok := s.Host("h").Head()
					if _, _, claimed := s.Next(now); !ok || !claimed {
						t.Fatalf("op %d: nothing to take", i)
					}
					s.Take("h", head.Seq)
				case o.record:
					s.Removed("h", 1)
					s.Returned("h", now)
					s.Done("h", now)
				case o.settle:
					head, ok := s.Host("h").Head()
					if _, _, claimed := s.Next(now); !ok || !claimed {
						t.Fatalf("op %d: nothing to settle", i)
					}
					s.Removed("h", 1)
					s.Settled("h", head.Seq, now)
					s.Cancel("h", now)
				case o.waitFor > 0:
					s.WaitFor("h", o.waitFor, now)
				case o.commit > 0:
					s.Committed(o.commit, now)
				case o.dropped > 0:
					s.Dropped("h", o.dropped, o.dropGen, now)
				case o.fail != "":
					s.Fail("h", o.fail, 0, now)
				case o.recover:
					s.Recovered("h", now)
				case o.hasOther:
					s.SetWork("h", true, now)
				}
			}
			h := s.Host("h")
			var ahead []string
			for _, e := range h.ahead {
				ahead = append(ahead, e.URL)
			}
			if !slices.Equal(ahead, tc.ahead) {
				t.Errorf("head %v, want %v", ahead, tc.ahead)
			}
			if h.Queued() != tc.queued || h.Taken() != tc.taken {
				t.Errorf("queued %d taken %d, want %d and %d", h.Queued(), h.Taken(), tc.queued, tc.taken)
			}
			if got, _, _ := s.Next(now); (got == "h") != tc.ready {
				t.Errorf("offered %v, want %v", got == "h", tc.ready)
			}
			if h.Failures() != tc.failures {
				t.Errorf("failures %d, want %d", h.Failures(), tc.failures)
			}
		})
	}
}

// TestHostBackoff pins the backoff: doubling from Base per consecutive
// failure up to Max, at least Retry-After capped at MaxHold, and the hold
// kept in the record.
func TestHostBackoff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := Backoff{Base: time.Second, Max: 8 * time.Second, MaxHold: time.Minute}
	cases := []struct {
		name       string
		failures   int           // failures before this one
		retryAfter time.Duration // the server's Retry-After
		want       time.Duration
	}{
		{"first failure waits Base", 0, 0, time.Second},
		{"second doubles", 1, 0, 2 * time.Second},
		{"capped at Max", 10, 0, 8 * time.Second},
		{"Retry-After longer than the backoff wins", 0, 30 * time.Second, 30 * time.Second},
		{"Retry-After capped at MaxHold", 0, time.Hour, time.Minute},
		{"a huge count does not overflow", 1000, 0, 8 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScheduler()
			s.SetBackoff(b)
			s.Host("h").failures = tc.failures
			until := s.Fail("h", "HTTP 503", tc.retryAfter, t0)
			if got := until.Sub(t0); got != tc.want {
				t.Errorf("held %v, want %v", got, tc.want)
			}
			s.Enqueued("h", "u", 1, t0)
			if open := s.OpenAt("h", t0); !open.Equal(until) {
				t.Errorf("slot opens at %v, want %v", open, until)
			}
			r := s.Record("h")
			if !r.HoldUntil.Equal(until) || r.Failures != tc.failures+1 || r.LastError != "HTTP 503" {
				t.Errorf("record %+v", r)
			}
		})
	}
}

// TestHostRecordRoundTrip: what a host's record keeps comes back after a
// restart: spacing from the last request, the hold, the failures, the IP
// group, and after a crash a full delay from the restart.
func TestHostRecordRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetBackoff(Backoff{Base: 10 * time.Second, Max: 10 * time.Second})
	s.SetInterval("h", time.Second, t0)
	s.Enqueued("h", "a", 1, t0)
	s.Next(t0)
	s.Started("h", t0.Add(5*time.Millisecond))
	s.SetGroup("h", "192.0.2.1", t0)
	s.Done("h", t0.Add(10*time.Millisecond))
	s.Fail("h", "timeout", 0, t0.Add(10*time.Millisecond))
	r := s.Record("h")
	want := storage.HostRecord{LastRequest: t0.Add(5 * time.Millisecond), Interval: 1, HoldUntil: t0.Add(10*time.Millisecond + 10*time.Second),
		Failures: 1, LastError: "timeout", IP: "192.0.2.1"}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("record %+v, want %+v", r, want)
	}
	for _, crashed := range []bool{false, true} {
		later := t0.Add(time.Minute)
		s2 := NewScheduler()
		s2.RestoreHost("h", r, 3, crashed, later)
		h := s2.Host("h")
		if h.Queued() != 3 || h.Failures() != 1 || s2.Group("h") != "192.0.2.1" || s2.Interval("h") != time.Second {
			t.Errorf("crashed=%v: restored queued %d failures %d group %q interval %v", crashed, h.Queued(), h.Failures(), s2.Group("h"), s2.Interval("h"))
		}
		wantOpen := later // the hold and the spacing are long past
		if crashed {
			wantOpen = later.Add(time.Second + Margin(time.Second))
		}
		if open := s2.OpenAt("h", later); !open.Equal(wantOpen) {
			t.Errorf("crashed=%v: opens at %v, want %v", crashed, open, wantOpen)
		}
	}
}

// TestRestoreWithoutRecord: after a crash, a host whose record never made
// it to the state file (its results were in the batch the crash lost), or
// whose record was lost to damage, still waits its delay from the restart:
// the interval it already has (the default delay, set when the crawl
// learnt of the host) stands when the record has none.
func TestRestoreWithoutRecord(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		record   storage.HostRecord
		crashed  bool
		wantOpen time.Duration // after t0
		interval time.Duration
	}{
		{"no record, crash", storage.HostRecord{}, true, 40*time.Millisecond + Margin(40*time.Millisecond), 40 * time.Millisecond},
		{"no record, clean stop", storage.HostRecord{}, false, 0, 40 * time.Millisecond},
		{"record with a longer interval", storage.HostRecord{Interval: 2}, true, 2*time.Second + Margin(2*time.Second), 2 * time.Second},
		{"record with a shorter interval", storage.HostRecord{Interval: 0.01}, true, 40*time.Millisecond + Margin(40*time.Millisecond), 40 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScheduler()
			s.SetInterval("h", 40*time.Millisecond, t0) // the default delay
			s.RestoreHost("h", tc.record, 1, tc.crashed, t0)
			if got := s.Interval("h"); got != tc.interval {
				t.Errorf("interval %v, want %v", got, tc.interval)
			}
			if open := s.OpenAt("h", t0); !open.Equal(t0.Add(tc.wantOpen)) {
				t.Errorf("opens %v after the restart, want %v", open.Sub(t0), tc.wantOpen)
			}
		})
	}
}
