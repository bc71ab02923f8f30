package frontier

import (
	"slices"
	"testing"
	"time"
)

// TestIPGroupInFlightCap: hosts on one IP share its in-flight cap; hosts
// on other IPs, or not yet grouped, do not.
func TestIPGroupInFlightCap(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetIPLimits(2, 0, t0)
	for _, h := range []string{"a", "b", "c", "d"} {
		s.SetGroup(h, "10.0.0.1", t0)
		s.SetWork(h, true, t0)
	}
	s.SetGroup("x", "10.0.0.2", t0)
	s.SetWork("x", true, t0)
	s.SetWork("new", true, t0) // not connected yet: no group

	claim := func(now time.Time) []string {
		var got []string
		for {
			h, _, ok := s.Next(now)
			if !ok {
				slices.Sort(got)
				return got
			}
			got = append(got, h)
		}
	}
	steps := []struct {
		at      time.Duration
		done    []string // requests that end before the claims
		want    []string // hosts claimed, sorted
		inGroup int      // in flight to 10.0.0.1 afterwards
	}{
		{0, nil, []string{"a", "b", "new", "x"}, 2},
		{time.Second, nil, nil, 2},
		{time.Second, []string{"a"}, []string{"c"}, 2},
		{2 * time.Second, []string{"b", "c"}, []string{"a", "d"}, 2},
		{3 * time.Second, []string{"x", "new"}, []string{"new", "x"}, 2},
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		for _, h := range st.done {
			s.Done(h, now)
		}
		got := claim(now)
		if !slices.Equal(got, st.want) {
			t.Errorf("step %d: claimed %v, want %v", i, got, st.want)
		}
		if n := s.GroupInFlight("10.0.0.1"); n != st.inGroup {
			t.Errorf("step %d: %d in flight to 10.0.0.1, want %d", i, n, st.inGroup)
		}
	}
}

// TestIPGroupSpacing: ip_delay spaces request starts across the group's
// hosts, on top of each host's own delay; a cancelled claim gives its
// token back.
func TestIPGroupSpacing(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetIPLimits(0, 100*time.Millisecond, t0)
	for _, h := range []string{"a", "b", "c"} {
		s.SetGroup(h, "192.0.2.7", t0)
		s.SetWork(h, true, t0)
	}
	steps := []struct {
		at       time.Duration
		wantHost string
		wantWait time.Duration
		cancel   bool
	}{
		{0, "a", 0, false},
		{10 * time.Millisecond, "", 95 * time.Millisecond, false}, // 100ms and its 5ms margin
		{105 * time.Millisecond, "b", 0, true},                    // b's URL turned out disallowed
		{105 * time.Millisecond, "c", 0, false},                   // the token is back; c has waited longest
		{150 * time.Millisecond, "", 60 * time.Millisecond, false},
		{210 * time.Millisecond, "b", 0, false},
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		h, wait, ok := s.Next(now)
		if !ok {
			h = ""
		}
		if h != st.wantHost || !ok && wait.Round(time.Microsecond) != st.wantWait {
			t.Fatalf("step %d: Next(+%v) = %q, wait %v; want %q, wait %v", i, st.at, h, wait, st.wantHost, st.wantWait)
		}
		if st.cancel {
			s.Cancel(h, now)
		}
	}
	// A request that really left later than its claim moves the group's
	// spacing with it.
	s.Started("b", t0.Add(230*time.Millisecond))
	s.Done("a", t0.Add(240*time.Millisecond))
	if _, wait, ok := s.Next(t0.Add(240 * time.Millisecond)); ok || wait.Round(time.Microsecond) != 95*time.Millisecond {
		t.Errorf("after a late start: wait %v ok %v, want 95ms", wait, ok)
	}
}

// TestIPGroupMove: a host whose IP changes leaves its old group; its
// request in flight still counts against the group it was claimed in.
func TestIPGroupMove(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetIPLimits(1, 0, t0)
	s.SetGroup("a", "ip1", t0)
	s.SetGroup("b", "ip1", t0)
	s.SetWork("a", true, t0)
	s.SetWork("b", true, t0)
	if h, _, ok := s.Next(t0); !ok || h != "a" {
		t.Fatalf("first claim %q", h)
	}
	if h, _, ok := s.Next(t0); ok {
		t.Fatalf("claimed %q past the cap", h)
	}
	s.SetGroup("a", "ip2", t0)
	if s.GroupInFlight("ip1") != 1 {
		t.Fatal("the request in flight left its group when the host moved")
	}
	s.Done("a", t0)
	if h, _, ok := s.Next(t0); !ok || h != "a" && h != "b" {
		t.Fatalf("after done: %q %v", h, ok)
	}
	if s.Group("a") != "ip2" || s.GroupInFlight("ip1")+s.GroupInFlight("ip2") != 1 {
		t.Errorf("groups: a in %q, in flight ip1 %d ip2 %d", s.Group("a"), s.GroupInFlight("ip1"), s.GroupInFlight("ip2"))
	}
}
