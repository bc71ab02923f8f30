package crawler

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// loopbackNames looks every *.test name up as 127.0.0.1: many host names
// of one server, as on shared hosting.
func loopbackNames(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// named is h's URL for path under the name name.test instead of 127.0.0.1.
func named(h *crawltest.Host, name, path string) string {
	_, port, _ := net.SplitHostPort(h.Authority())
	return "http://" + name + ".test:" + port + path
}

// TestSharedIPFromTheFirstRequest: fifty hosts on one server (loopback,
// a port each), named by their address or by a name each that looks up as
// 127.0.0.1, crawled by 16 workers with ip_max_in_flight 4: counted by the
// servers, never more than 4 requests were open at once, from the very
// first (each host's robots.txt). Before a host's address was known ahead
// of its first request, its first request went out before its IP group
// was known: 16 at once here.
func TestSharedIPFromTheFirstRequest(t *testing.T) {
	for _, byName := range []bool{false, true} {
		t.Run(fmt.Sprintf("by name %v", byName), func(t *testing.T) {
			web := crawltest.NewWeb()
			defer web.Close()
			var seeds, scope []string
			for i := range 50 {
				name := fmt.Sprintf("h%d", i)
				h := web.AddTree(name, 2, "User-agent: *\nAllow: /\n", 10*time.Millisecond)
				h.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nAllow: /\n", Delay: 10 * time.Millisecond})
				root := h.URL("/")
				if byName {
					root = named(h, name, "/")
				}
				seeds, scope = append(seeds, root), append(scope, strings.TrimSuffix(strings.TrimPrefix(root, "http://"), "/"))
			}
			cfg := testConfig(seeds...)
			cfg.Scope, cfg.Workers, cfg.IPMaxInFlight, cfg.Lookup = scope, 16, 4, loopbackNames
			db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
			defer db.Close()
			c, err := New(db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := c.Run(ctx); err != nil || ctx.Err() != nil {
				t.Fatalf("run: %v %v", err, ctx.Err())
			}
			total := 0
			for _, h := range web.Hosts() {
				total += len(h.Log())
			}
			if total != 50*3 {
				t.Errorf("%d requests, want %d (robots.txt and 2 pages per host)", total, 50*3)
			}
			peak := maxOverlap(web)
			t.Logf("most requests open at once at the server, all requests counted: %d", peak)
			if peak > 4 {
				t.Errorf("the server served %d requests at once, ip_max_in_flight 4", peak)
			}
			st, err := status.Read(db, time.Now(), frontier.Adaptive{})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range st.PerHost {
				if h.IP != "127.0.0.1" {
					t.Errorf("status: host %s in IP group %q", h.Host, h.IP)
				}
			}
		})
	}
}

// TestSharedIPDelayFromTheFirstRequest: in fake time, fifty host names on
// one IP with ip_delay 50ms: every request start to that IP, the first
// robots.txt requests included, is ip_delay plus the margin after the one
// before.
func TestSharedIPDelayFromTheFirstRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := crawltest.NewPipeNet()
		web := crawltest.NewWeb()
		defer web.Close()
		var seeds, scope []string
		for i := range 50 {
			name := fmt.Sprintf("s%d.test", i)
			pn.SetIP(name, "192.0.2.1")
			web.AddPipeHost(name, pn, name, map[string]*crawltest.Page{"/robots.txt": {Status: 404}, "/": {Body: "x"}})
			seeds, scope = append(seeds, "http://"+name+"/"), append(scope, name)
		}
		cfg := testConfig(seeds...)
		cfg.Scope, cfg.Workers = scope, 16
		cfg.Fetch.DialContext, cfg.Lookup = pn.Dial, pn.Lookup
		cfg.IPDelay = 50 * time.Millisecond
		crawlToEnd(t, cfg)
		var all []crawltest.Request
		for _, h := range web.Hosts() {
			if n := len(h.Log()); n != 2 {
				t.Fatalf("%s: %d requests, want 2", h.Name, n)
			}
			all = append(all, h.Log()...)
		}
		wantStartsApart(t, "192.0.2.1", all, 54*time.Millisecond) // 50ms and its 5ms margin, less the rate limiter's rounding
	})
}

// TestNextAddressWhenTheFirstRefuses: a name with two addresses, the
// first of which refuses connections (127.0.0.2: nothing listens there),
// is crawled through the second, every page once. Before, every request
// went to the first address and failed until the answer expired.
func TestNextAddressWhenTheFirstRefuses(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	h := web.AddTree("h", 3, "User-agent: *\nAllow: /\n", 0)
	cfg := testConfig(named(h, "h", "/"))
	cfg.Scope = []string{strings.TrimSuffix(strings.TrimPrefix(named(h, "h", ""), "http://"), "/")}
	cfg.Lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")}, nil
	}
	cfg.RobotsRetryBase = time.Minute // a retry would hang the test
	fetched := 0
	for u, r := range runToEnd(t, filepath.Join(t.TempDir(), "s.db"), cfg) {
		if r.State != storage.Fetched {
			t.Errorf("%s: %s %s", u, r.State, r.Error)
		}
		fetched++
	}
	if fetched != 3 || len(h.Log()) != 4 { // robots.txt and 3 pages
		t.Errorf("%d pages fetched, %d requests; want 3 and 4", fetched, len(h.Log()))
	}
}

// TestPrivateAddressAfterLookup: a name that looks up as a private
// address is refused with network.allow_private off: the guard sees the
// address the request was to connect to, and the server sees nothing.
func TestPrivateAddressAfterLookup(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	h := web.AddHost("h", map[string]*crawltest.Page{"/": {Body: "x"}})
	cfg := testConfig(named(h, "inside", "/"))
	cfg.Fetch.AllowPrivate, cfg.Lookup = false, loopbackNames
	cfg.RobotsRetryBase = time.Minute // a retry would hang the test
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v %v", err, ctx.Err())
	}
	if n := len(h.Log()); n != 0 {
		t.Errorf("loopback server saw %d requests", n)
	}
	r := records(t, db)[named(h, "inside", "/")]
	if r == nil || r.State != storage.Failed || !strings.Contains(r.Error, "private address refused: 127.0.0.1") {
		t.Errorf("record %+v", r)
	}
}

// TestLookupFailure: a name that does not exist fails its URLs without a
// crash and without a request; a name whose lookup times out backs its
// host off like any failed request and is looked up again.
func TestLookupFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := crawltest.NewPipeNet()
		web := crawltest.NewWeb()
		defer web.Close()
		flaky := web.AddPipeHost("flaky", pn, "flaky.test", map[string]*crawltest.Page{"/robots.txt": {Status: 404}, "/": {Body: "x"}})
		cfg := testConfig("http://gone.test/", "http://flaky.test/")
		cfg.Scope = []string{"gone.test", "flaky.test"}
		cfg.Fetch.DialContext = pn.Dial
		failures := 0
		cfg.Lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			if host == "flaky.test" && failures < 2 {
				failures++
				return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
			}
			return pn.Lookup(ctx, host)
		}
		db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
		defer db.Close()
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		recs := records(t, db)
		if r := recs["http://gone.test/"]; r == nil || r.State != storage.Failed || !strings.Contains(r.Error, "no such host") {
			t.Errorf("gone.test: %+v", r)
		}
		if r := recs["http://flaky.test/"]; r == nil || r.State != storage.Fetched {
			t.Errorf("flaky.test: %+v", r)
		}
		if n := len(flaky.Log()); n != 2 || failures != 2 {
			t.Errorf("flaky.test served %d requests after %d failed lookups, want 2 after 2", n, failures)
		}
	})
}
