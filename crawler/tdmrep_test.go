package crawler

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/metrics"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
)

// tdmRepPages is a site whose tdmrep.json reserves /tdm/*, answered by
// file (its failures set there).
func tdmRepPages(file *crawltest.Page) map[string]*crawltest.Page {
	file.Body = `[{"location": "/tdm/*", "tdm-reservation": 1}]`
	file.Header = map[string]string{"Content-Type": "application/json"}
	return map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n", Header: map[string]string{"Content-Type": "text/plain"}},
		"/":           {Body: `<a href="/tdm/x">t</a><a href="/open">o</a>`},
		"/tdm/x":      {Body: "reserved"},
		"/open":       {Body: "open"},
		tdmRepPath:    file,
	}
}

// A 429 or 5xx answer to tdmrep.json backs the host off as the same
// answer to a page does (at least Retry-After, SPEC 6.3), and the file
// is asked for again after the backoff, its pages waiting behind it; once
// the crawl's retries are spent it is taken as absent. Run in a synctest
// bubble: the gaps are exact.
func TestTDMRepFailureBacksOff(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fail      crawltest.Page
		retries   int
		requests  int     // of tdmrep.json
		reserved  bool    // /tdm/x refused, never requested
		wantGapMs []int64 // start to start: default_delay plus the scheduler's margin, or a hold
	}{
		{"503 with Retry-After, then the file",
			crawltest.Page{FailTimes: 1, FailStatus: 503, FailHeader: map[string]string{"Retry-After": "2"}},
			3, 2, true, []int64{105, 2000, 105, 105}},
		{"429 with Retry-After, then the file",
			crawltest.Page{FailTimes: 1, FailStatus: 429, FailHeader: map[string]string{"Retry-After": "2"}},
			3, 2, true, []int64{105, 2000, 105, 105}},
		{"500 without Retry-After: backoff, then the file",
			crawltest.Page{FailTimes: 1, FailStatus: 500},
			3, 2, true, []int64{105, 205, 105, 105}}, // the error delay (100ms) outlasts the backoff
		{"always 503: taken as absent after the retries",
			crawltest.Page{FailTimes: 1 << 30, FailStatus: 503, FailHeader: map[string]string{"Retry-After": "1"}},
			2, 2, false, []int64{105, 1000, 1000, 205, 105}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pn := crawltest.NewPipeNet()
				w := crawltest.NewWeb()
				defer w.Close()
				file := tc.fail
				h := w.AddPipeHost("site", pn, "site.test", tdmRepPages(&file))
				cfg := testConfig("http://site.test/")
				cfg.Purpose = "ai-train"
				cfg.Fetch.DialContext, cfg.Lookup = pn.Dial, pn.Lookup
				cfg.DefaultDelay = 100 * time.Millisecond
				cfg.MaxRetries = tc.retries
				cfg.BackoffMax = 100 * time.Millisecond // one step: the gaps are exact
				db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
				defer db.Close()
				c, err := New(db, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if n := h.Count(tdmRepPath); n != tc.requests {
					t.Errorf("tdmrep.json requested %d times, want %d", n, tc.requests)
				}
				if got := h.Count("/tdm/x") == 0; got != tc.reserved {
					t.Errorf("/tdm/x not requested: %v, want %v (reserved by the file)", got, tc.reserved)
				}
				if r := records(t, db)["http://site.test/tdm/x"]; tc.reserved && (r == nil || r.State != storage.Disallowed) {
					t.Errorf("/tdm/x record %+v, want disallowed by the file", r)
				}
				log := h.Log()
				if len(log) != len(tc.wantGapMs)+1 {
					t.Fatalf("%d requests, want %d: %+v", len(log), len(tc.wantGapMs)+1, log)
				}
				for i, g := range tc.wantGapMs {
					want := time.Duration(g) * time.Millisecond
					if gap := log[i+1].Start.Sub(log[i].Start); gap < want || gap >= want+time.Millisecond {
						t.Errorf("%s (%d) -> %s after %v, want exactly %v; log %v", log[i].Path, log[i].Status, log[i+1].Path, gap, want, gaps(log))
					}
				}
			})
		})
	}
}

func gaps(log []crawltest.Request) []string {
	var out []string
	for i := 1; i < len(log); i++ {
		out = append(out, log[i].Path+" "+log[i].Start.Sub(log[i-1].Start).String())
	}
	return out
}

// tdmrep.json is kept in the state file as robots.txt is: a restarted
// crawl uses the stored answer while it is fresh (robots.txt's TTL, 24 h
// by default) and asks no more; once it is stale, the file is asked for
// again before the origin's next page.
func TestTDMRepKeptAcrossRestarts(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	pages := tdmRepPages(&crawltest.Page{})
	for _, p := range []string{"/new", "/tdm/y", "/later", "/tdm/z"} {
		pages[p] = &crawltest.Page{Body: "page"}
	}
	h := web.AddHost("site", pages)
	path := filepath.Join(t.TempDir(), "s.db")
	for i, step := range []struct {
		shift    time.Duration // the crawl's clock, from now
		fetch    string        // a new seed of the origin, to be fetched
		reserved string        // a new seed the file reserves
		asked    int           // tdmrep.json requests so far
	}{
		{0, "/", "", 1},
		{time.Hour, "/new", "/tdm/y", 1},        // fresh: the stored file decides
		{25 * time.Hour, "/later", "/tdm/z", 2}, // stale: asked again
	} {
		cfg := testConfig(h.URL(step.fetch))
		if step.reserved != "" {
			cfg.Seeds = append(cfg.Seeds, h.URL(step.reserved))
		}
		cfg.Purpose = "ai-train"
		cfg.Now = func() time.Time { return time.Now().Add(step.shift) }
		db := openDB(t, path)
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = c.Run(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if n := h.Count(tdmRepPath); n != step.asked {
			t.Errorf("step %d: tdmrep.json requested %d times in all, want %d", i, n, step.asked)
		}
		if n := h.Count(step.fetch); n != 1 {
			t.Errorf("step %d: %s requested %d times, want once", i, step.fetch, n)
		}
		if step.reserved != "" {
			r := records(t, db)[h.URL(step.reserved)]
			if h.Count(step.reserved) != 0 || r == nil || r.State != storage.Disallowed {
				t.Errorf("step %d: %s requested %d times, record %+v; want refused by the file", i, step.reserved, h.Count(step.reserved), r)
			}
		}
		db.View(func(tx *storage.Tx) error {
			rec, err := tx.GetTDMRep(strings.TrimSuffix(h.URL("/"), "/"))
			if err != nil || rec == nil || rec.Status != 200 || len(rec.Body) == 0 {
				t.Errorf("step %d: stored tdmrep.json %+v, %v; want the file", i, rec, err)
			}
			return nil
		})
		db.Close()
	}
}

// TestTDMRepFetchMetrics: with a purpose declared, each tdmrep.json
// request counts in politecrawl_tdmrep_fetches_total by outcome: a file
// (found), none (absent, a 404), a broken one (unusable), a 503 (error,
// then found when it is asked again); robots.txt and pages count where
// they did. Without a purpose the file is not asked for and nothing
// counts.
func TestTDMRepFetchMetrics(t *testing.T) {
	for _, purpose := range []string{"ai-train", ""} {
		name := "purpose " + purpose
		if purpose == "" {
			name = "no purpose"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pn := crawltest.NewPipeNet()
				w := crawltest.NewWeb()
				defer w.Close()
				site := func(file *crawltest.Page) map[string]*crawltest.Page {
					pages := tdmRepPages(file)
					if file.Status == 404 {
						delete(pages, tdmRepPath)
					}
					return pages
				}
				hosts := []*crawltest.Host{
					w.AddPipeHost("found", pn, "found.test", site(&crawltest.Page{})),
					w.AddPipeHost("absent", pn, "absent.test", site(&crawltest.Page{Status: 404})),
					w.AddPipeHost("failing", pn, "failing.test", site(&crawltest.Page{FailTimes: 1, FailStatus: 503})),
				}
				broken := tdmRepPages(&crawltest.Page{})
				broken[tdmRepPath].Body = "{"
				hosts = append(hosts, w.AddPipeHost("broken", pn, "broken.test", broken))
				cfg := testConfig("http://found.test/", "http://absent.test/", "http://failing.test/", "http://broken.test/")
				cfg.Scope = []string{"found.test", "absent.test", "failing.test", "broken.test"}
				cfg.Purpose = purpose
				cfg.Fetch.DialContext, cfg.Lookup = pn.Dial, pn.Lookup
				cfg.DefaultDelay, cfg.BackoffMax = 100*time.Millisecond, 100*time.Millisecond
				reg := prometheus.NewRegistry()
				cfg.Metrics = metrics.New(reg)
				crawlToEnd(t, cfg)
				asked := 0
				for _, h := range hosts {
					asked += h.Count(tdmRepPath)
				}
				want := map[string]float64{"found": 2, "absent": 1, "unusable": 1, "error": 1}
				if purpose == "" {
					want = map[string]float64{}
				}
				got := counters(t, reg, "politecrawl_tdmrep_fetches_total")
				if !maps.Equal(got, want) {
					t.Errorf("politecrawl_tdmrep_fetches_total %v, want %v (%d requests for the file)", got, want, asked)
				}
				if got := counters(t, reg, "politecrawl_robots_fetches_total"); got["parsed"] != 4 {
					t.Errorf("politecrawl_robots_fetches_total %v, want 4 parsed", got)
				}
			})
		})
	}
}

// counters is each value of the counter family name in reg, by its one
// label's value.
func counters(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				out[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// TestTDMRepRefusedByThePrivateGuard: a tdmrep.json request our own
// private-address guard refuses (network.allow_private off, the host on
// loopback) sends nothing, so, as for a refused page or robots.txt, the
// host's last request stays the one before it, and its next request
// (here a page, refused too, then another) does not wait a delay for it.
// The first run, with private addresses allowed and no purpose, reads
// robots.txt, which the second run, refusing them and with a purpose,
// takes from the state file: only tdmrep.json and the pages are asked
// for. The file's refusal does not count in
// politecrawl_tdmrep_fetches_total.
func TestTDMRepRefusedByThePrivateGuard(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	h := web.AddHost("site", tdmRepPages(&crawltest.Page{}))
	path := filepath.Join(t.TempDir(), "s.db")
	run := func(cfg Config) (*storage.DB, time.Duration) {
		t.Helper()
		db := openDB(t, path)
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		if err := c.Run(ctx); err != nil || ctx.Err() != nil {
			t.Fatalf("run: %v %v", err, ctx.Err())
		}
		return db, time.Since(start)
	}
	lastRequest := func(db *storage.DB) (rec storage.HostRecord) {
		t.Helper()
		db.View(func(tx *storage.Tx) error {
			return tx.ForEachHost(func(host string, r storage.HostRecord) error {
				if host == h.Authority() {
					rec = r
				}
				return nil
			})
		})
		return rec
	}

	cfg := testConfig(h.URL("/open"))
	db, _ := run(cfg)
	before := lastRequest(db)
	db.Close()
	if n := len(h.Log()); n != 2 || before.LastRequest.IsZero() {
		t.Fatalf("first run: %d requests (want robots.txt and /open), last request %v", n, before.LastRequest)
	}

	// An hour later by the crawl's clock: the delay since the first
	// run's last request is over when the second starts.
	const delay = 3 * time.Second
	cfg = testConfig(h.URL("/"), h.URL("/tdm-free"))
	cfg.Purpose, cfg.Fetch.AllowPrivate, cfg.DefaultDelay = "ai-train", false, delay
	cfg.Now = func() time.Time { return time.Now().Add(time.Hour) }
	reg := prometheus.NewRegistry()
	cfg.Metrics = metrics.New(reg)
	db, took := run(cfg)
	defer db.Close()
	if n := len(h.Log()); n != 2 {
		t.Errorf("second run: the server saw %d more requests, want none", n-2)
	}
	after := lastRequest(db)
	if !after.LastRequest.Equal(before.LastRequest) || !strings.Contains(after.LastError, "network.allow_private") {
		t.Errorf("host's last request %v after the refusals, want %v (the first run's: nothing was sent); last error %q",
			after.LastRequest, before.LastRequest, after.LastError)
	}
	if took >= delay {
		t.Errorf("second run took %v: a refused request waited a delay (%v) after a refused one", took.Round(time.Millisecond), delay)
	}
	for _, p := range []string{"/", "/tdm-free"} {
		if r := records(t, db)[h.URL(p)]; r == nil || r.State != storage.Failed || !strings.Contains(r.Error, "private address") {
			t.Errorf("%s record %+v, want failed: private address refused", p, r)
		}
	}
	if got := counters(t, reg, "politecrawl_tdmrep_fetches_total"); len(got) != 0 {
		t.Errorf("politecrawl_tdmrep_fetches_total %v, want nothing counted (nothing was sent)", got)
	}
}
