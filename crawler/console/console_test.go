package console

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/storage"
)

// fakeSource serves a fixed snapshot and host detail.
type fakeSource struct {
	st     *status.Status
	detail *status.HostDetail
	calls  int
}

func (f *fakeSource) Status(context.Context) (*status.Status, error) {
	f.calls++
	return f.st, nil
}

func (f *fakeSource) Host(_ context.Context, host string) (*status.HostDetail, error) {
	return f.detail, nil
}

var t0 = time.Date(2026, 11, 25, 20, 30, 0, 0, time.UTC)

const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>`

func testSource() *fakeSource {
	return &fakeSource{
		st: &status.Status{State: "/var/crawl/state.db", Running: true, Fetched: 12, Queued: 5, InFlight: 1, Disallowed: 2, Failed: 1, Hosts: 3,
			At: t0, Started: t0.Add(-time.Hour), UptimeS: 3600,
			Cluster: status.NewCluster("crawl1", "node1", 4, 10, []status.Lease{{Shard: 0, Node: "node1", Renewed: t0.Add(-time.Second)},
				{Shard: 1, Node: "node2", Renewed: t0.Add(-8 * time.Second)}, {Shard: 3, Node: "node1", Renewed: t0.Add(-2 * time.Second)}}),
			Activity: &status.ActivityView{BucketS: 30, Series: []status.Point{{At: t0, Pages: 3, Bytes: 3000}},
				Codes: map[string]int{"200": 11, "503": 1}, Errors: []status.Error{{At: t0, URL: "http://evil.test/" + hostile, Error: "HTTP 503 " + hostile}}},
			PerHost: []status.Host{
				{Host: "a.test", Queued: 3, State: status.StateWaiting, Until: t0.Add(1500 * time.Millisecond), NextRequest: t0.Add(1500 * time.Millisecond),
					IntervalS: 2, DelayFrom: "Crawl-delay", Why: "delay 2s (Crawl-delay)", StateCounts: storage.StateCounts{Fetched: 4}},
				{Host: "b.test", Queued: 0, State: status.StateRobotsUnreachable, Until: t0.Add(time.Minute), Why: "timeout", StateCounts: storage.StateCounts{Failed: 1}},
				{Host: "evil.test", Queued: 2, State: status.StateDone, LastError: hostile, StateCounts: storage.StateCounts{Fetched: 8, Disallowed: 2}},
			}},
		detail: &status.HostDetail{Host: "evil.test",
			Robots: []status.RobotsFile{{Origin: "http://evil.test", Outcome: "parsed", Status: 200, Scope: "global",
				Lines: []status.RobotsLine{{N: 1, Text: "User-agent: *"}, {N: 2, Text: "Disallow: /" + hostile, Applies: true}}}},
			Recent: []status.URL{{URL: "http://evil.test/", State: "fetched", Status: 200, FetchedAt: t0, Title: hostile}},
			Head:   []string{"http://evil.test/next"},
		},
	}
}

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func newTestConsole(src Source) http.Handler {
	mux := http.NewServeMux()
	New(src, Options{Now: func() time.Time { return t0 }}).Register(mux)
	return mux
}

// TestPages: each page answers with what a person looks for on it, and
// the security headers.
func TestPages(t *testing.T) {
	h := newTestConsole(testSource())
	for _, c := range []struct {
		path string
		code int
		want []string
	}{
		{"/", 200, []string{`id="count-fetched">12<`, `id="count-queued">5<`, `id="count-in-flight">1<`, `id="count-failed">1<`,
			"/var/crawl/state.db", "503 <b>1</b>", "<svg class=\"chart\"", "1h0m0s",
			"Cluster crawl1", "3 of 4 shards leased", `data-node="node2"`, "20:29:52.0 UTC", "(8s ago)", "0, 3"}},
		{"/hosts", 200, []string{"3 of 3 hosts", `data-host="a.test"`, "waiting</span> until", "20:30:01.5", "(in 1.5s)", "(Crawl-delay)", "robots.txt unreachable"}},
		{"/hosts?q=evil", 200, []string{"1 of 3 hosts", `data-host="evil.test"`}},
		{"/hosts?state=waiting", 200, []string{"1 of 3 hosts", `data-host="a.test"`}},
		{"/hosts/evil.test", 200, []string{`id="host-name">evil.test<`, "http://evil.test/next", `class="line applies"`}},
		{"/hosts/nowhere.test", 404, []string{"does not know this host"}},
		{"/console/assets/console.js", 200, []string{"DOMParser"}},
		{"/console/assets/console.css", 200, []string{"--accent"}},
	} {
		resp, body := get(t, h, c.path)
		if resp.StatusCode != c.code {
			t.Errorf("GET %s: HTTP %d, want %d", c.path, resp.StatusCode, c.code)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: no %q in the page", c.path, w)
			}
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"} {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("GET %s: %s %q, want %q", c.path, k, got, v)
			}
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: CSP %q", c.path, csp)
		}
		if strings.HasSuffix(c.path, ".js") || strings.HasSuffix(c.path, ".css") {
			continue
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") {
			t.Errorf("GET %s: inline script or style in the page", c.path)
		}
	}
}

// TestHostileTextIsEscaped: HTML and script in a page title, a robots.txt
// line, an error and a URL are shown as text, never as markup.
func TestHostileTextIsEscaped(t *testing.T) {
	h := newTestConsole(testSource())
	for _, path := range []string{"/", "/hosts", "/hosts/evil.test"} {
		_, body := get(t, h, path)
		if strings.Contains(body, hostile) || strings.Contains(body, "<img") {
			t.Errorf("GET %s: the hostile text is in the page as markup", path)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s: the hostile text is not shown escaped", path)
		}
	}
}

// TestSnapshotIsShared: requests within MaxAge share one snapshot.
func TestSnapshotIsShared(t *testing.T) {
	src := testSource()
	now := t0
	mux := http.NewServeMux()
	New(src, Options{Now: func() time.Time { return now }}).Register(mux)
	get(t, mux, "/")
	get(t, mux, "/hosts")
	if src.calls != 1 {
		t.Errorf("%d snapshots for two pages within a second, want 1", src.calls)
	}
	now = now.Add(2 * time.Second)
	get(t, mux, "/")
	if src.calls != 2 {
		t.Errorf("%d snapshots after the first aged, want 2", src.calls)
	}
}

// TestHostsTable: sorting, paging and filtering, as the table shows them.
func TestHostsTable(t *testing.T) {
	hosts := manyHosts(250)
	for i, c := range []struct {
		q     Query
		first string
		rows  int
		next  bool
	}{
		{Query{Sort: SortQueued, Page: 1, Per: 100}, "h00249.test", 100, true},
		{Query{Sort: SortFetched, Page: 1, Per: 100}, "h00000.test", 100, true},
		{Query{Sort: SortName, Page: 3, Per: 100}, "h00200.test", 50, false},
		{Query{Sort: SortNext, Page: 1, Per: 10}, "h00003.test", 10, true}, // in flight first
		{Query{Sort: SortErrors, Page: 1, Per: 10}, "h00009.test", 10, true},
		{Query{Sort: SortName, State: status.StateBackingOff, Page: 1, Per: 100}, "h00007.test", 25, false},
		{Query{Sort: SortName, Q: "h0012", Page: 1, Per: 100}, "h00120.test", 10, false},
		{Query{Sort: SortName, Page: 99, Per: 100}, "h00200.test", 50, false}, // past the end: the last page
	} {
		p := newHostsPage(hosts, c.q)
		if len(p.Rows) != c.rows || p.Rows[0].Host != c.first || (p.Next != "") != c.next {
			t.Errorf("step %d: %+v: %d rows from %s, next %q; want %d from %s, next %v", i, c.q, len(p.Rows), p.Rows[0].Host, p.Next, c.rows, c.first, c.next)
		}
	}
}

func manyHosts(n int) []status.Host {
	hosts := make([]status.Host, n)
	for i := range hosts {
		h := status.Host{Host: fmt.Sprintf("h%05d.test", i), Queued: i, State: status.StateWaiting,
			NextRequest: t0.Add(time.Duration(i%97) * time.Second), IntervalS: 1, DelayFrom: "default",
			StateCounts: storage.StateCounts{Fetched: n - i, Failed: i % 10}}
		if i%10 == 7 {
			h.State, h.Until, h.Why = status.StateBackingOff, t0.Add(time.Minute), "backoff after HTTP 503"
		}
		if i%100 == 3 {
			h.InFlight, h.NextRequest = true, time.Time{}
		}
		hosts[i] = h
	}
	return hosts
}

// BenchmarkConsoleHosts100k renders one page of the hosts table sorted by
// queue length for 100,000 hosts, from a snapshot already taken (goal:
// at most 100 ms).
func BenchmarkConsoleHosts100k(b *testing.B) {
	st := &status.Status{Running: true, At: t0, PerHost: manyHosts(100_000), Hosts: 100_000}
	h := newTestConsole(&fakeSource{st: st})
	get(&testing.T{}, h, "/hosts") // parse and warm
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/hosts?sort=queued&page=7", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// FuzzParseQuery: any query string gives a usable Query (a known sort
// key, a known state or none, a page and a page size in range) and a page
// that renders, never a panic.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "sort=fetched&page=2&per=10", "state=waiting&q=a", "per=-1&page=0", "per=99999999999999999999", "sort=%zz"} {
		f.Add(s)
	}
	hosts := manyHosts(30)
	f.Fuzz(func(t *testing.T, raw string) {
		v, _ := url.ParseQuery(raw)
		q := parseQuery(v)
		if !slices.Contains(sortChoices, q.Sort) || q.State != "" && !slices.Contains(stateChoices, q.State) ||
			q.Page < 1 || q.Per < 1 || q.Per > maxPer {
			t.Fatalf("%q: %+v", raw, q)
		}
		p := newHostsPage(hosts, q)
		if len(p.Rows) > q.Per || p.Page < 1 || p.Page > p.Pages {
			t.Fatalf("%q: %d rows, page %d of %d", raw, len(p.Rows), p.Page, p.Pages)
		}
	})
}
