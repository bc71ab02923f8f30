package frontier

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
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
// hosts, on top of each host's own delay, counted from when each request
// went out (Sent): until a claim is reported sent the group's other hosts
// wait, since it may go out later than it was claimed. A cancelled claim
// gives its token back.
func TestIPGroupSpacing(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetIPLimits(0, 100*time.Millisecond, t0)
	for _, h := range []string{"a", "b", "c"} {
		s.SetGroup(h, "192.0.2.7", t0)
		s.SetWork(h, true, t0)
	}
	const (
		next = iota
		cancel
		sent
		done
	)
	ms := time.Millisecond
	steps := []struct {
		at       time.Duration
		op       int
		host     string        // next: the host claimed ("" none); other ops: the host
		wantWait time.Duration // next with no claim: how long until one; -1: not before a report
		sentAt   time.Duration // sent: when it went out
	}{
		{0, next, "a", 0, 0},
		{1 * ms, next, "", -1, 0},          // b and c wait: a has not gone out yet
		{3 * ms, sent, "a", 0, 2 * ms},     // it went out 2ms after its claim (connecting)
		{10 * ms, next, "", 97 * ms, 0},    // 100ms and its 5ms margin, from +2ms
		{107 * ms, next, "b", 0, 0},        //
		{107 * ms, cancel, "b", 0, 0},      // b's URL turned out disallowed
		{107 * ms, next, "c", 0, 0},        // the token is back; c has waited longest
		{107 * ms, sent, "c", 0, 107 * ms}, //
		{150 * ms, next, "", 62 * ms, 0},   //
		{200 * ms, done, "c", 0, 0},        // c's request is over (and it has more work)
		{212 * ms, next, "c", 0, 0},        // open since +200ms (its group since +212ms): before b
		{213 * ms, sent, "b", 0, 213 * ms}, // a report for b, whose claim was cancelled: ignored
		{214 * ms, next, "", -1, 0},        // c has not gone out: b waits
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		switch st.op {
		case cancel:
			s.Cancel(st.host, now)
			continue
		case sent:
			s.Sent(st.host, t0.Add(st.sentAt), now)
			continue
		case done:
			s.Done(st.host, now)
			s.SetWork(st.host, true, now)
			continue
		}
		h, wait, ok := s.Next(now)
		if !ok {
			h = ""
		}
		if !ok && wait > 0 {
			wait = wait.Round(time.Microsecond)
		}
		if h != st.host || !ok && wait != st.wantWait {
			t.Fatalf("step %d: Next(+%v) = %q, wait %v; want %q, wait %v", i, st.at, h, wait, st.host, st.wantWait)
		}
		if ok && !s.WantsSent(h) {
			t.Errorf("step %d: %s's claim does not wait to be reported sent", i, h)
		}
	}
	// c really left at +230ms: the group's spacing counts from there.
	s.Sent("c", t0.Add(230*ms), t0.Add(231*ms))
	if _, wait, ok := s.Next(t0.Add(240 * ms)); ok || wait.Round(time.Microsecond) != 95*ms {
		t.Errorf("after a late start: wait %v ok %v, want 95ms", wait, ok)
	}
	// Without spacing, claims do not wait for reports.
	s.SetIPLimits(0, 0, t0.Add(300*ms))
	s.Done("a", t0.Add(300*ms))
	s.Done("c", t0.Add(300*ms))
	h, _, ok := s.Next(t0.Add(300 * ms))
	if !ok || s.WantsSent(h) {
		t.Fatalf("no ip_delay: claimed %q (%v), waits for a report: %v", h, ok, s.WantsSent(h))
	}
	if h2, _, ok := s.Next(t0.Add(300 * ms)); !ok || h2 == h {
		t.Errorf("no ip_delay: a second host of the group did not start at once: %q %v", h2, ok)
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

// TestReachedGroupIsSpaced: a request claimed in the group of a name's
// first address that reached its second (the first refused) counts in
// the second's spacing: another host of that address waits ip_delay after
// it. Before, the host moved groups but the group never heard of the
// request, and the other host was claimed 200 ms after it.
func TestReachedGroupIsSpaced(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const x, y = "192.0.2.1", "192.0.2.2"
	s := NewScheduler()
	s.SetResolveFirst(true)
	s.SetIPLimits(0, 10*time.Second, t0)
	s.Resolved("a", x, []string{y}, nil, time.Time{}, t0)
	s.Resolved("b", y, nil, nil, time.Time{}, t0)
	s.SetWork("a", true, t0)
	if h, _, ok := s.Next(t0); !ok || h != "a" {
		t.Fatalf("claimed %q %v, want a", h, ok)
	}
	s.Done("a", t0.Add(100*time.Millisecond))
	s.Reached("a", y, t0.Add(100*time.Millisecond)) // x refused: the request went to y
	s.SetWork("b", true, t0.Add(200*time.Millisecond))
	for _, at := range []time.Duration{200 * time.Millisecond, 9 * time.Second} {
		if h, _, ok := s.Next(t0.Add(at)); ok {
			t.Errorf("%s claimed %v after a's request reached %s, ip_delay 10s", h, at, y)
		}
	}
	if _, _, ok := s.Next(t0.Add(11 * time.Second)); !ok {
		t.Error("nothing claimed 11s after a's request: the group stayed closed")
	}
}

// TestRestoredGroupIsSpaced: after a restart, the hosts of one IP wait
// ip_delay from the latest of their last requests before the stop, as
// each waits its own delay from its own: b (last asked 60 s before) is
// not claimed 1 s after a's request to the same server.
func TestRestoredGroupIsSpaced(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetIPLimits(0, 10*time.Second, t0)
	for host, ago := range map[string]time.Duration{"a": time.Second, "b": time.Minute} {
		s.SetIntervalWhy(host, time.Second, WhyDefault, t0)
		s.RestoreHost(host, storage.HostRecord{LastRequest: t0.Add(-ago), Interval: 1, IP: "192.0.2.1"}, 1, false, t0)
	}
	s.SetWork("b", true, t0)
	for _, at := range []time.Duration{0, 8 * time.Second} {
		if h, _, ok := s.Next(t0.Add(at)); ok {
			t.Errorf("%s claimed %v after the restart, %v after a's request to the same IP, ip_delay 10s", h, at, at+time.Second)
		}
	}
	if _, _, ok := s.Next(t0.Add(10 * time.Second)); !ok {
		t.Error("nothing claimed 11s after a's last request: the group stayed closed")
	}
}

// TestRefusedAfterItsClaim: a claim whose request the crawl refused
// before sending it (the private-address guard), given back when its
// result comes, after the claim's instant, returns the host's and its IP
// group's spacing as one given back at the claim's instant does: the next
// request counts from the last one sent, not from the claim. (A rate
// limiter reservation's own CancelAt gives nothing back once its instant
// has passed.)
func TestRefusedAfterItsClaim(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, after := range []time.Duration{0, 10 * time.Millisecond} {
		t.Run(fmt.Sprintf("host, refused %v after its claim", after), func(t *testing.T) {
			// h's last request went out at t0; 5 s later it is claimed
			// again, and refused: its next claim need not wait.
			s := NewScheduler()
			s.SetIntervalWhy("h", time.Second, WhyDefault, t0)
			s.SetWork("h", true, t0)
			if h, _, ok := s.Next(t0); !ok || h != "h" {
				t.Fatalf("first claim: %q %v", h, ok)
			}
			s.Done("h", t0.Add(50*time.Millisecond))
			claimed := t0.Add(5 * time.Second)
			if h, _, ok := s.Next(claimed); !ok || h != "h" {
				t.Fatalf("claim at +5s: %q %v", h, ok)
			}
			refused := claimed.Add(after)
			s.Refused("h", "private address refused", refused)
			if h, wait, ok := s.Next(refused); !ok || h != "h" {
				t.Errorf("after the refusal: Next = %q, wait %v; want h at once (its last request was 5s ago)", h, wait)
			}
		})
		t.Run(fmt.Sprintf("IP group, refused %v after its claim", after), func(t *testing.T) {
			// a's claim, the group's first, is refused: b, in the same
			// group, need not wait ip_delay after it.
			s := NewScheduler()
			s.SetIPLimits(0, time.Second, t0)
			s.SetGroup("a", "192.0.2.7", t0)
			s.SetWork("a", true, t0)
			if h, _, ok := s.Next(t0); !ok || h != "a" {
				t.Fatalf("first claim: %q %v", h, ok)
			}
			s.SetGroup("b", "192.0.2.7", t0)
			s.SetWork("b", true, t0)
			refused := t0.Add(after)
			s.Refused("a", "private address refused", refused)
			s.SetWork("a", false, refused)
			if h, wait, ok := s.Next(refused); !ok || h != "b" {
				t.Errorf("after the refusal: Next = %q, wait %v; want b at once (nothing was sent to the group)", h, wait)
			}
		})
	}
}

// TestRefusedAfterAStart: a claim given back after a start was reported
// for it, or after another host's request reached its IP group, keeps
// that spacing. The crawl can see a request refused by the private guard
// after it was written (net/http sent it again on a new connection when a
// kept-alive one closed, and the new dial was refused): that write counts.
func TestRefusedAfterAStart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("host: its request was written", func(t *testing.T) {
		s := NewScheduler()
		s.SetIntervalWhy("h", time.Second, WhyDefault, t0)
		s.SetWork("h", true, t0)
		if h, _, ok := s.Next(t0); !ok || h != "h" {
			t.Fatal("first claim")
		}
		s.Done("h", t0)
		claimed := t0.Add(5 * time.Second)
		if _, _, ok := s.Next(claimed); !ok {
			t.Fatal("second claim")
		}
		sent := claimed.Add(10 * time.Millisecond)
		s.Sent("h", sent, sent)
		s.Refused("h", "private address refused", sent.Add(20*time.Millisecond))
		if h, wait, ok := s.Next(sent.Add(30 * time.Millisecond)); ok || wait < 900*time.Millisecond {
			t.Errorf("Next 30ms after a request written to h (delay 1s) = %q, wait %v, %v; want a wait of about 970ms", h, wait, ok)
		}
	})
	t.Run("IP group: another host's request reached it since the claim", func(t *testing.T) {
		const x, y = "192.0.2.1", "192.0.2.2"
		s := NewScheduler()
		s.SetIPLimits(0, 10*time.Second, t0)
		s.SetGroup("a", y, t0)
		s.SetGroup("b", x, t0)
		s.SetWork("a", true, t0)
		s.SetWork("b", true, t0)
		got := map[string]bool{}
		for h, _, ok := s.Next(t0); ok; h, _, ok = s.Next(t0) {
			got[h] = true
		}
		if !got["a"] || !got["b"] {
			t.Fatalf("claimed %v, want a and b", got)
		}
		s.SetGroup("c", x, t0)
		s.SetWork("c", true, t0)
		ta := t0.Add(time.Second)
		s.Sent("a", ta, ta)
		s.Done("a", ta.Add(100*time.Millisecond))
		s.Reached("a", x, ta.Add(100*time.Millisecond)) // a's connection went to x after all
		s.SetWork("a", false, ta)
		tr := t0.Add(2 * time.Second)
		s.Refused("b", "private address refused", tr)
		s.SetWork("b", false, tr)
		if h, _, ok := s.Next(tr); ok {
			t.Errorf("%s claimed %v after a's request reached %s (ip_delay 10s)", h, tr.Sub(ta), x)
		}
	})
}
