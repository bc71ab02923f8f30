package resolve

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	names := map[string][]netip.Addr{
		"shop.test": {netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("192.0.2.8")},
		"many.test": {netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("::ffff:192.0.2.1"), netip.MustParseAddr("2001:db8::2"),
			netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("192.0.2.4")},
		"empty.test": {},
		"v4in6.test": {netip.MustParseAddr("::ffff:192.0.2.9")},
	}
	r := New(Options{TTL: time.Minute, Now: func() time.Time { return t0 },
		Lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			if strings.HasPrefix(host, "slow") {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			ips, ok := names[host]
			if !ok {
				return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			}
			return ips, nil
		}, Timeout: 20 * time.Millisecond})
	for i, c := range []struct {
		host     string
		ip       string
		others   []string
		until    time.Time
		err      string
		notFound bool
		timeout  bool
	}{
		{host: "shop.test:8080", ip: "192.0.2.7", others: []string{"192.0.2.8"}, until: t0.Add(time.Minute)}, // the first address, port ignored
		// The others in the system's order, each once, at most MaxOthers.
		{host: "many.test", ip: "192.0.2.1", others: []string{"2001:db8::2", "192.0.2.2", "192.0.2.3"}, until: t0.Add(time.Minute)},
		{host: "v4in6.test", ip: "192.0.2.9", until: t0.Add(time.Minute)},
		{host: "127.0.0.1:9000", ip: "127.0.0.1"}, // a literal: for good
		{host: "[::1]:9000", ip: "::1"},
		{host: "gone.test", err: "look up gone.test", notFound: true},
		{host: "empty.test", err: "no address"},
		{host: "slow.test", err: "deadline", timeout: true},
	} {
		a := r.Resolve(context.Background(), c.host)
		if a.IP != c.ip || !slices.Equal(a.Others, c.others) || !a.Until.Equal(c.until) || a.Host != c.host {
			t.Errorf("step %d: Resolve(%q) = %+v, want ip %q others %q until %v", i, c.host, a, c.ip, c.others, c.until)
		}
		if c.err == "" {
			if a.Err != nil {
				t.Errorf("step %d: %v", i, a.Err)
			}
			continue
		}
		var dnsErr *net.DNSError
		if a.Err == nil || !strings.Contains(a.Err.Error(), c.err) || !errors.As(a.Err, &dnsErr) ||
			dnsErr.IsNotFound != c.notFound || dnsErr.IsTimeout != c.timeout {
			t.Errorf("step %d: Resolve(%q) error %v, want a DNS error with %q (not found %v, timeout %v)", i, c.host, a.Err, c.err, c.notFound, c.timeout)
		}
	}
}

// TestResolverPool: names asked come back as answers, a slow lookup does
// not hold the others up, and Stop ends the lookups under way.
func TestResolverPool(t *testing.T) {
	release := make(chan struct{})
	r := New(Options{Workers: 2, Lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "slow.test" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil
	}})
	r.Start(context.Background())
	defer r.Stop()
	for _, h := range []string{"slow.test", "a.test", "b.test", "c.test"} {
		if !r.Ask(h) {
			t.Fatal("no room")
		}
	}
	got := map[string]bool{}
	timeout := time.After(5 * time.Second)
	for len(got) < 3 {
		select {
		case a := <-r.Answers():
			r.Took()
			got[a.Host] = true
		case <-timeout:
			t.Fatalf("answers %v: held up by the slow lookup", got)
		}
	}
	if got["slow.test"] || r.Pending() != 1 {
		t.Errorf("answers %v, pending %d", got, r.Pending())
	}
	close(release)
	if a := <-r.Answers(); a.Host != "slow.test" {
		t.Errorf("last answer %+v", a)
	}
}
