package robotscache

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func noRedirectClient() Client {
	return Client{HTTP: &http.Client{
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, Clock: time.Now}
}

func TestFetchOutcomes(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private\n"
	for _, c := range []struct {
		name         string
		status       int
		body         string
		header       map[string]string
		want         Outcome
		privateAllow bool // Allowed("/private") under the outcome's policy
	}{
		{"200 parses", 200, rules, nil, Parsed, false},
		{"200 HTML body is harmless", 200, "<html>oops</html>", nil, Parsed, true},
		{"204 empty", 204, "", nil, Parsed, true},
		{"404 allows all", 404, rules, nil, Unavailable, true},
		{"401 allows all", 401, rules, nil, Unavailable, true},
		{"403 allows all", 403, rules, nil, Unavailable, true},
		{"410 allows all", 410, "", nil, Unavailable, true},
		{"429 disallows all", 429, "", nil, Unreachable, false},
		{"500 disallows all", 500, rules, nil, Unreachable, false},
		{"503 disallows all", 503, "", nil, Unreachable, false},
		{"redirect without location", 302, "", nil, Unavailable, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if ua := r.Header.Get("User-Agent"); ua != "testbot/1.0" {
					t.Errorf("User-Agent %q", ua)
				}
				for k, v := range c.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(c.status)
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			res := Fetch(context.Background(), noRedirectClient(), srv.URL+"/robots.txt", "testbot/1.0")
			if res.Outcome != c.want || res.Status != c.status {
				t.Fatalf("outcome %v status %d, want %v %d (%s)", res.Outcome, res.Status, c.want, c.status, res.Reason())
			}
			if got := res.Robots.Allowed("testbot", "/private"); got != c.privateAllow {
				t.Errorf("Allowed(/private) = %v, want %v", got, c.privateAllow)
			}
			if !res.Robots.Allowed("testbot", "/robots.txt") {
				t.Error("robots.txt itself must stay allowed")
			}
		})
	}
}

func TestFetchRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /moved\n")
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			http.Redirect(w, r, other.URL+"/robots.txt", http.StatusMovedPermanently)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, c := range []struct {
		start    int // redirects = start+1
		want     Outcome
		hops     int
		disallow bool
	}{
		{0, Parsed, 1, true},
		{4, Parsed, 5, true},
		{5, Unavailable, 5, false},
	} {
		res := Fetch(context.Background(), noRedirectClient(), fmt.Sprintf("%s/hop/%d", srv.URL, c.start), "testbot")
		if res.Outcome != c.want || res.Hops != c.hops {
			t.Errorf("%d redirects: outcome %v hops %d, want %v %d (%s)", c.start+1, res.Outcome, res.Hops, c.want, c.hops, res.Reason())
		}
		if got := !res.Robots.Allowed("testbot", "/moved"); got != c.disallow {
			t.Errorf("%d redirects: /moved disallowed = %v, want %v", c.start+1, got, c.disallow)
		}
	}
}

func TestFetchNetworkErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/robots.txt"
	srv.Close()
	res := Fetch(context.Background(), noRedirectClient(), url, "testbot")
	if res.Outcome != Unreachable || res.Err == nil || res.Robots.Allowed("testbot", "/x") {
		t.Errorf("connection refused: %v %v", res.Outcome, res.Err)
	}

	// A body cut short by the server is a network failure too.
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		fmt.Fprint(w, "User-agent: *\nAllow: /")
	}))
	defer cut.Close()
	res = Fetch(context.Background(), noRedirectClient(), cut.URL+"/robots.txt", "testbot")
	if res.Outcome != Unreachable {
		t.Errorf("truncated body: outcome %v, want unreachable", res.Outcome)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer slow.Close()
	if res := Fetch(ctx, noRedirectClient(), slow.URL+"/robots.txt", "testbot"); res.Outcome != Unreachable {
		t.Errorf("timeout: outcome %v, want unreachable", res.Outcome)
	}
}

func TestFetchLargeBodyDropsPartialLine(t *testing.T) {
	head := "User-agent: *\nDisallow: /private\n"
	pad := strings.Repeat("#", 512000-len(head)-len("Allow: /")-1) + "\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, head+pad+"Allow: /private-area\n"+strings.Repeat("x", 1<<20))
	}))
	defer srv.Close()
	res := Fetch(context.Background(), noRedirectClient(), srv.URL+"/robots.txt", "testbot")
	if res.Outcome != Parsed || len(res.Body) != 512001 {
		t.Fatalf("outcome %v, body %d bytes", res.Outcome, len(res.Body))
	}
	if res.Robots.Allowed("testbot", "/private") {
		t.Error("the cut line widened the rules")
	}
}

func TestRetryAfterAndMaxAge(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		v    string
		want time.Duration
	}{
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"-3", 0},
		{"soon", 0},
		{"", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"Sunday, 22-Nov-26 12:01:00 GMT", time.Minute},
	} {
		if got := RetryAfter(c.v, now); got != c.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v    string
		want time.Duration
	}{
		{"max-age=3600", time.Hour},
		{"public, Max-Age=60, must-revalidate", time.Minute},
		{"no-cache", 0},
		{"max-age=abc", 0},
	} {
		if got := MaxAge(c.v); got != c.want {
			t.Errorf("MaxAge(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}
