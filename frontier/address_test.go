package frontier

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestLookupBeforeFirstClaim: with ResolveFirst, no host is claimed before
// its name is looked up; the answer puts it in its IP group, so the
// group's in-flight cap holds from the very first request; the address
// is used until it expires, then looked up again; a failed lookup serves
// one claim (its request fails with the error) and is asked again after.
func TestLookupBeforeFirstClaim(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetResolveFirst(true)
	s.SetIPLimits(2, 0, t0)
	hosts := []string{"a", "b", "c", "d"}
	for _, h := range hosts {
		s.SetWork(h, true, t0)
	}
	claimAll := func(now time.Time) []string {
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
	if got := claimAll(t0); got != nil {
		t.Fatalf("claimed %v before any lookup", got)
	}
	asked := s.Lookups(10)
	slices.Sort(asked)
	if !slices.Equal(asked, hosts) {
		t.Fatalf("lookups %v, want %v", asked, hosts)
	}
	if again := s.Lookups(10); again != nil {
		t.Fatalf("lookups handed out twice: %v", again)
	}
	until := t0.Add(time.Minute)
	for _, h := range hosts {
		s.Resolved(h, "192.0.2.1", []string{"192.0.2.9"}, nil, until, t0)
	}
	if got := claimAll(t0); len(got) != 2 {
		t.Fatalf("first claims %v: want 2, the IP's cap", got)
	}
	if n := s.GroupInFlight("192.0.2.1"); n != 2 {
		t.Errorf("%d in flight to the group, want 2", n)
	}
	if ip, others, err := s.Address("a"); ip != "192.0.2.1" || !slices.Equal(others, []string{"192.0.2.9"}) || err != nil {
		t.Errorf("address %q %q %v", ip, others, err)
	}

	// Expired: looked up again at its next turn.
	later := until.Add(time.Second)
	for _, h := range hosts {
		s.Done(h, later)
	}
	if got := claimAll(later); got != nil {
		t.Fatalf("claimed %v with expired addresses", got)
	}
	if got := s.Lookups(10); len(got) != 4 {
		t.Fatalf("lookups after expiry %v", got)
	}

	// A failed lookup serves one claim, which carries the error.
	lookupErr := errors.New("no such host")
	s.Resolved("a", "", nil, lookupErr, time.Time{}, later)
	if got := claimAll(later); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("claims %v, want [a]", got)
	}
	if _, _, err := s.Address("a"); !errors.Is(err, lookupErr) {
		t.Errorf("claim's lookup error %v", err)
	}
	s.Done("a", later.Add(time.Second))
	if got := claimAll(later.Add(time.Second)); got != nil {
		t.Fatalf("claimed %v again on a failed lookup", got)
	}
	if got := s.Lookups(10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("lookups after a failed one %v, want [a]", got)
	}
}

// TestLookupsOff: without ResolveFirst, hosts are claimed whatever their
// address (the Scheduler's own default, for callers that do not look up).
func TestLookupsOff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetWork("a", true, t0)
	if h, _, ok := s.Next(t0); !ok || h != "a" {
		t.Fatalf("not claimed: %q %v", h, ok)
	}
	if got := s.Lookups(10); got != nil {
		t.Errorf("lookups %v", got)
	}
}

// TestAddressThatAnswered: a host whose request reached its name's second
// address (the first refused) joins that address's group, its next
// claims connect there first, and a new lookup listing both addresses
// keeps it there instead of moving it back and forth; once the answer no
// longer lists that address, the host goes to the new first one.
func TestAddressThatAnswered(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewScheduler()
	s.SetResolveFirst(true)
	s.SetWork("a", true, t0)
	const x, y, z = "192.0.2.1", "192.0.2.2", "192.0.2.3"
	check := func(step, wantGroup, wantIP string, wantOthers []string) {
		t.Helper()
		ip, others, _ := s.Address("a")
		if g := s.Group("a"); g != wantGroup || ip != wantIP || !slices.Equal(others, wantOthers) {
			t.Errorf("%s: group %s, address %s then %v; want group %s, address %s then %v", step, g, ip, others, wantGroup, wantIP, wantOthers)
		}
	}
	s.Resolved("a", x, []string{z, y}, nil, t0.Add(time.Minute), t0)
	check("looked up", x, x, []string{z, y})
	s.SetGroup("a", y, t0) // a request went to y: x refused it
	check("answered at y", y, y, []string{x, z})
	s.Resolved("a", x, []string{z, y}, nil, t0.Add(2*time.Minute), t0.Add(time.Minute))
	check("looked up again", y, y, []string{x, z})
	s.Resolved("a", x, []string{z}, nil, t0.Add(3*time.Minute), t0.Add(2*time.Minute))
	check("y no longer listed", x, x, []string{z})
}
