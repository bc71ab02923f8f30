package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestFetchBasics(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "../target?x=1", http.StatusMovedPermanently)
		case "/big":
			fmt.Fprint(w, strings.Repeat("a", 5000))
		case "/cond":
			if r.Header.Get("If-None-Match") == `W/"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, "changed")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<title>x</title>")
		}
	}))
	defer srv.Close()
	f := New(Options{UserAgent: "politecrawl/1.0 (+https://example.org/bot)", From: "ops@example.org", MaxBody: 1000, AllowPrivate: true})
	defer f.Close()
	ctx := context.Background()

	r, err := f.Fetch(ctx, Request{URL: srv.URL + "/page"})
	if err != nil || r.Status != 200 || string(r.Body) != "<title>x</title>" || r.ContentType != "text/html; charset=utf-8" {
		t.Fatalf("page: %+v %v", r, err)
	}
	if got.Get("User-Agent") != "politecrawl/1.0 (+https://example.org/bot)" || got.Get("From") != "ops@example.org" {
		t.Errorf("headers sent: %v", got)
	}
	r, err = f.Fetch(ctx, Request{URL: srv.URL + "/redirect"})
	if err != nil || r.Status != 301 || r.Location != srv.URL+"/target?x=1" {
		t.Errorf("redirect must come back as data: %+v %v", r, err)
	}
	r, err = f.Fetch(ctx, Request{URL: srv.URL + "/big"})
	if err != nil || len(r.Body) != 1000 || !r.Truncated {
		t.Errorf("body cap: %d bytes truncated=%v %v", len(r.Body), r.Truncated, err)
	}
	r, err = f.Fetch(ctx, Request{URL: srv.URL + "/cond", ETag: `W/"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT"})
	if err != nil || r.Status != 304 || got.Get("If-Modified-Since") != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("conditional GET: %+v %v", r, err)
	}
	// The conditions were that request's only: the next is plain.
	if r, err = f.Fetch(ctx, Request{URL: srv.URL + "/page"}); err != nil || got.Get("If-None-Match") != "" ||
		got.Get("If-Modified-Since") != "" || got.Get("User-Agent") != "politecrawl/1.0 (+https://example.org/bot)" {
		t.Errorf("plain GET after a conditional one: %v, headers sent %v", err, got)
	}
}

func TestPrivateAddressGuard(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	f := New(Options{UserAgent: "t"})
	defer f.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, u := range []string{srv.URL + "/", "http://localhost:" + port + "/"} {
		_, err := f.Fetch(context.Background(), Request{URL: u})
		if !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s: err %v, want ErrPrivateAddress", u, err)
		}
	}
	if hits != 0 {
		t.Errorf("server saw %d requests through the guard", hits)
	}
	for _, c := range []struct {
		ip     string
		public bool
	}{
		{"127.0.0.1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"0.0.0.0", false}, {"100.64.0.1", false}, {"::1", false},
		{"fe80::1", false}, {"fc00::1", false}, {"::ffff:127.0.0.1", false}, {"224.0.0.1", false},
		{"93.184.216.34", true}, {"2001:4860:4860::8888", true},
	} {
		if got := IsPublic(net.ParseIP(c.ip)); got != c.public {
			t.Errorf("IsPublic(%s) = %v, want %v", c.ip, got, c.public)
		}
	}
}

func TestTimeouts(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	f := New(Options{UserAgent: "t", HeaderTimeout: 100 * time.Millisecond, AllowPrivate: true})
	defer f.Close()
	start := time.Now()
	_, err := f.Fetch(context.Background(), Request{URL: srv.URL})
	var fe *Error
	if !errors.As(err, &fe) || !fe.Timeout {
		t.Errorf("want a timeout error, got %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Error("header timeout not applied")
	}
}

// TestIdleConnections pins what Options.IdleConns means to the servers: a
// host visited again finds its connection open while the pool has room
// for every host in rotation, and pays a new connection per request when
// it has not (or with keep-alive off).
func TestIdleConnections(t *testing.T) {
	var servers []*httptest.Server
	for range 3 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
		defer srv.Close()
		servers = append(servers, srv)
	}
	for _, tc := range []struct {
		name      string
		idle      int
		hosts     int
		wantDials int
	}{
		{"default keeps every host's connection", 0, 3, 3},
		{"room for every host", 3, 3, 3},
		{"fewer than the hosts in rotation", 2, 3, 12},
		{"one host fits one", 1, 1, 1},
		{"keep-alive off", -1, 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dials int
			var d net.Dialer
			f := New(Options{UserAgent: "t", AllowPrivate: true, IdleConns: tc.idle,
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					dials++ // requests are sequential
					return d.DialContext(ctx, network, addr)
				}})
			defer f.Close()
			for round := range 4 {
				for _, srv := range servers[:tc.hosts] {
					r, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/"})
					if err != nil || r.Status != 200 {
						t.Fatalf("round %d: %+v %v", round, r, err)
					}
				}
			}
			if dials != tc.wantDials {
				t.Errorf("%d connections for %d requests to %d hosts, want %d", dials, 4*tc.hosts, tc.hosts, tc.wantDials)
			}
		})
	}
}

// TestReadBody: the body read with a buffer sized from Content-Length is
// what io.ReadAll reads, cut at the cap, whether the length announced is
// right, short, long, unknown or huge.
func TestReadBody(t *testing.T) {
	const max = 1000
	for _, tc := range []struct {
		name string
		body int   // bytes the reader holds
		size int64 // Content-Length announced; -1 unknown
	}{
		{"exact", 300, 300},
		{"empty", 0, 0},
		{"unknown", 3000, -1},
		{"announced short", 700, 100},
		{"announced long", 100, 900},
		{"exactly the cap", max, max},
		{"over the cap", 5000, 5000},
		{"one over the cap", max + 1, max + 1},
		{"huge announced", 20, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Repeat("abcdefghij", tc.body/10+1)[:tc.body]
			want, _ := io.ReadAll(io.LimitReader(strings.NewReader(src), max+1))
			got, err := readBody(iotest.HalfReader(strings.NewReader(src)), tc.size, max)
			if err != nil || string(got) != string(want) {
				t.Errorf("readBody = %d bytes, %v; want %d bytes", len(got), err, len(want))
			}
			if cap(got) > 2*max+2 {
				t.Errorf("buffer of %d bytes for a cap of %d", cap(got), max)
			}
		})
	}
	if _, err := readBody(iotest.ErrReader(errors.New("reset")), 10, max); err == nil || err.Error() != "reset" {
		t.Errorf("read error = %v, want reset", err)
	}
}

// TestSendLikeClient: a Fetch answers as it did when it went through
// http.Client: the same responses, redirects as data, and the same errors
// for a refused connection, a redirect whose Location does not parse, an
// HTTP server asked in TLS, and a URL with user information.
func TestSendLikeClient(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/badloc":
			w.Header().Set("Location", "http://[::1")
			w.WriteHeader(http.StatusFound)
		case "/noloc":
			w.WriteHeader(http.StatusTemporaryRedirect)
		case "/badloc200":
			w.Header().Set("Location", "http://[::1")
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	f := New(Options{UserAgent: "t", AllowPrivate: true})
	defer f.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, u := range []string{srv.URL + "/", srv.URL + "/badloc", srv.URL + "/noloc", srv.URL + "/badloc200",
		closed.URL + "/", "https://" + host + "/", "http://user:pw@" + host + "/"} {
		resp, err := f.send(mustRequest(t, u))
		want, wantErr := client.Do(mustRequest(t, u))
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, want %v", u, err, wantErr)
		}
		if err == nil && wantErr == nil {
			if resp.StatusCode != want.StatusCode || resp.Header.Get("Location") != want.Header.Get("Location") {
				t.Errorf("%s: %d %q, want %d %q", u, resp.StatusCode, resp.Header.Get("Location"), want.StatusCode, want.Header.Get("Location"))
			}
			resp.Body.Close()
			want.Body.Close()
		}
	}
	if auth == "" {
		t.Error("a URL's user information was not sent as basic authentication")
	}
}

func mustRequest(t *testing.T, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
