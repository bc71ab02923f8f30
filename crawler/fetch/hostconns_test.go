package fetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConnsTake: a host without a port is the URL's default ports, 80 and
// 443; with one, exactly that address; no other host's connection is
// taken, whatever its name shares.
func TestConnsTake(t *testing.T) {
	addrs := []string{"a.test:80", "a.test:443", "a.test:8080", "aa.test:80", "b.test:80", "[::1]:80", "[::1]:8080"}
	for _, tc := range []struct {
		host string
		want []string
	}{
		{"a.test", []string{"a.test:443", "a.test:80"}},
		{"a.test:8080", []string{"a.test:8080"}},
		{"a.test:80", []string{"a.test:80"}},
		{"[::1]", []string{"[::1]:80"}},
		{"[::1]:8080", []string{"[::1]:8080"}},
		{"c.test", nil},
	} {
		var s conns
		for _, a := range addrs {
			s.add(a, &timedConn{})
		}
		var got []string
		for _, c := range s.take(tc.host) {
			got = append(got, c.addr)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("take(%q) = %q, want %q", tc.host, got, tc.want)
		}
		if left := s.open(); left != len(addrs)-len(tc.want) {
			t.Errorf("take(%q) left %d open, want %d", tc.host, left, len(addrs)-len(tc.want))
		}
		if again := s.take(tc.host); len(again) != 0 {
			t.Errorf("take(%q) twice gave %d more", tc.host, len(again))
		}
	}
}

// TestCloseHost: the server of a host the crawl is done with sees its
// connection end at once; another host's connection stays open and
// carries its next request; the next request to the closed host dials
// again and succeeds.
func TestCloseHost(t *testing.T) {
	type server struct {
		srv    *httptest.Server
		mu     sync.Mutex
		closed int
		remote []string // the client's end of each request's connection
	}
	start := func() *server {
		s := &server{}
		s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.remote = append(s.remote, r.RemoteAddr)
			s.mu.Unlock()
			w.Write([]byte("ok"))
		}))
		s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateClosed {
				s.mu.Lock()
				s.closed++
				s.mu.Unlock()
			}
		}
		s.srv.Start()
		return s
	}
	a, b := start(), start()
	defer a.srv.Close()
	defer b.srv.Close()
	f := New(Options{UserAgent: "t", AllowPrivate: true, Timeout: 5 * time.Second})
	defer f.Close()
	get := func(s *server) {
		t.Helper()
		if _, err := f.Fetch(context.Background(), Request{URL: s.srv.URL + "/"}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(s *server) (int, []string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.closed, slices.Clone(s.remote)
	}
	get(a)
	get(b)
	if n := f.conns.open(); n != 2 {
		t.Fatalf("%d connections open, want 2", n)
	}
	f.CloseHost(strings.TrimPrefix(a.srv.URL, "http://"))
	deadline := time.Now().Add(5 * time.Second)
	for n, _ := read(a); n == 0; n, _ = read(a) {
		if time.Now().After(deadline) {
			t.Fatal("a's server never saw its connection end")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := f.conns.open(); n != 1 {
		t.Errorf("%d connections open after CloseHost, want 1 (b's)", n)
	}
	get(b)
	get(a)
	if n, remote := read(b); n != 0 || remote[0] != remote[1] {
		t.Errorf("b: %d connections closed, requests on %q: want its one connection kept", n, remote)
	}
	if _, remote := read(a); remote[0] == remote[1] {
		t.Errorf("a: both requests on %s, want a new connection after CloseHost", remote[0])
	}
}
