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
