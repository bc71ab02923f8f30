package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestPinnedAddress: a request whose host's address is pinned connects to
// that address without looking the name up (pinned.test does not exist),
// with the name as its Host; the private-address guard still sees the
// address it connects to; a pinned lookup error fails the request before
// any connection, as the DNS error it is; an address that refuses the
// connection gives way to the name's next one.
func TestPinnedAddress(t *testing.T) {
	var host string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	url := "http://pinned.test:" + port + "/"
	pin := func(a Address) context.Context { return WithAddress(context.Background(), a) }
	lookupErr := &net.DNSError{Err: "no such host", Name: "pinned.test", IsNotFound: true}
	for i, c := range []struct {
		private bool
		addr    Address
		wantErr string
		dnsErr  bool
	}{
		{true, Address{Host: "pinned.test:" + port, IP: "127.0.0.1"}, "", false},
		{true, Address{Host: "pinned.test", IP: "127.0.0.1"}, "", false},                         // the port does not matter
		{false, Address{Host: "pinned.test", IP: "127.0.0.1"}, ErrPrivateAddress.Error(), false}, // the guard sees 127.0.0.1
		{true, Address{Host: "pinned.test", Err: lookupErr}, "no such host", true},
		// 127.0.0.2 refuses (the server listens on 127.0.0.1): the next
		// address is tried; when every one refuses, the first's error.
		{true, Address{Host: "pinned.test", IP: "127.0.0.2", Others: []string{"127.0.0.1"}}, "", false},
		{true, Address{Host: "pinned.test", IP: "127.0.0.2", Others: []string{"127.0.0.3"}}, "127.0.0.2:" + port, false},
	} {
		f := New(Options{UserAgent: "t", AllowPrivate: c.private})
		host = ""
		r, err := f.Fetch(pin(c.addr), Request{URL: url})
		f.Close()
		if c.wantErr == "" {
			if err != nil || r.Status != 200 || host != "pinned.test:"+port {
				t.Errorf("step %d: %v, host %q", i, err, host)
			}
			continue
		}
		if err == nil || host != "" {
			t.Errorf("step %d: got through (host %q)", i, host)
			continue
		}
		if !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("step %d: error %v, want %q", i, err, c.wantErr)
		}
		var de *net.DNSError
		if c.dnsErr && (!errors.As(err, &de) || !de.IsNotFound) {
			t.Errorf("step %d: error %v is not the DNS error", i, err)
		}
	}
}

// TestDialFirst: the addresses are tried in order; the error returned is
// the first address's, unless that is the private-address refusal and
// another address failed otherwise (the refusal gives the host up at
// once, a refused public address is retried); addresses that do not
// answer share one connect budget instead of taking one each.
func TestDialFirst(t *testing.T) {
	refused := errors.New("connection refused")
	dialer := func(ok string, tried *[]string) func(context.Context, string, string) (net.Conn, error) {
		return func(ctx context.Context, _, a string) (net.Conn, error) {
			*tried = append(*tried, a)
			switch {
			case a == ok:
				c1, c2 := net.Pipe()
				c2.Close()
				return c1, nil
			case strings.HasPrefix(a, "10."):
				return nil, ErrPrivateAddress
			case strings.HasPrefix(a, "silent"):
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return nil, refused
		}
	}
	for _, c := range []struct {
		name    string
		addrs   []string
		ok      string
		wantErr error
	}{
		{"first answers", []string{"192.0.2.1:80", "192.0.2.2:80"}, "192.0.2.1:80", nil},
		{"second answers", []string{"192.0.2.1:80", "192.0.2.2:80"}, "192.0.2.2:80", nil},
		{"none: the first's error", []string{"192.0.2.1:80", "10.0.0.1:80"}, "", refused},
		{"private, then a refused public one", []string{"10.0.0.1:80", "192.0.2.1:80"}, "", refused},
		{"all private", []string{"10.0.0.1:80", "10.0.0.2:80"}, "", ErrPrivateAddress},
	} {
		var tried []string
		conn, err := dialFirst(context.Background(), dialer(c.ok, &tried), "tcp", c.addrs, time.Second)
		if conn != nil {
			conn.Close()
		}
		if c.wantErr == nil && err != nil || c.wantErr != nil && !errors.Is(err, c.wantErr) {
			t.Errorf("%s: tried %v, error %v, want %v", c.name, tried, err, c.wantErr)
		}
	}

	// Four silent addresses within a 100 ms budget: over in about that,
	// not four connect timeouts (here the test's own 5 s bound).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var tried []string
	start := time.Now()
	_, err := dialFirst(ctx, dialer("", &tried), "tcp", []string{"silent1", "silent2", "silent3", "silent4"}, 100*time.Millisecond)
	if took := time.Since(start); err == nil || took > 2*time.Second {
		t.Errorf("silent addresses: error %v after %v (tried %v), want an error within the 100ms budget", err, took, tried)
	}
}
