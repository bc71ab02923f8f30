package crawler

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// fakeNode is a cluster as one node sees it: the hosts it serves, the URLs
// it holds, and what the crawl diverted to it.
type fakeNode struct {
	mu       sync.Mutex
	serves   map[string]bool
	holds    map[string]bool
	diverted []frontier.Candidate
	decided  map[string]string // URL -> state, from Observe
	robots   map[string]*storage.RobotsRecord
	fetched  map[string]earlyOutcome // URL -> what Fetched was told
}

// earlyOutcome is what Node.Fetched was told of one page.
type earlyOutcome struct {
	rec   *storage.URLRecord
	found []frontier.Candidate
}

func (f *fakeNode) Fetched(rec *storage.URLRecord, found []frontier.Candidate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fetched[rec.URL] = earlyOutcome{rec, found}
}

func (f *fakeNode) Robots(origin string, r *storage.RobotsRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.robots[origin] = r
}

// nodeDelay is the default delay of the node tests' crawls.
const nodeDelay = 10 * time.Millisecond

// newFakeNode serves the given hosts and holds nothing yet.
func newFakeNode(serves ...string) *fakeNode {
	f := &fakeNode{serves: map[string]bool{}, holds: map[string]bool{}, decided: map[string]string{}, robots: map[string]*storage.RobotsRecord{},
		fetched: map[string]earlyOutcome{}}
	for _, h := range serves {
		f.serves[h] = true
	}
	return f
}

// nodeCrawl prepares a crawl of scope running as node (short delays); the
// state file is closed when the test ends.
func nodeCrawl(t *testing.T, node *fakeNode, cfg Config, scope ...string) (*Crawler, *storage.DB) {
	t.Helper()
	cfg.Scope, cfg.Node, cfg.DefaultDelay = scope, node, nodeDelay
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	t.Cleanup(func() { db.Close() })
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, db
}

func (f *fakeNode) Divert(c frontier.Candidate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diverted = append(f.diverted, c)
}

func (f *fakeNode) Serves(host string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.serves[host]
}

func (f *fakeNode) Holds(url string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holds[url]
}

func (f *fakeNode) Decided(e Event, _ *storage.URLRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decided[e.URL] = e.State
}

func (f *fakeNode) divertedURLs() map[string]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]bool{}
	for _, c := range f.diverted {
		out[c.URL] = true
	}
	return out
}

// TestNodeHooks: a crawl running as a cluster node admits nothing itself
// (seeds and links go to Divert), fetches only hosts it serves and URLs it
// holds, drops a queued URL it no longer holds without a request, queues
// such a URL again when it comes back, and does not end when its own
// frontier is empty.
func TestNodeHooks(t *testing.T) {
	w, names := crawltest.NewWeb(), []string{"a", "b"}
	for i, n := range names {
		w.AddTree(n, 3, "User-agent: *\nDisallow: /nothing\n", 0, names[(i+1)%2])
	}
	defer w.Close()
	a, b := w.Host("a"), w.Host("b")
	node := newFakeNode(a.Authority())
	cfg := testConfig(a.URL("/"))
	c, db := nodeCrawl(t, node, cfg, a.Authority(), b.Authority())
	if got := node.divertedURLs(); !got[a.URL("/")] || len(records(t, db)) != 0 {
		t.Fatalf("the seed was not diverted (diverted %v, %d records)", got, len(records(t, db)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	// Admitted and held: fetched, and its links diverted, not queued here.
	node.mu.Lock()
	node.holds[a.URL("/")] = true
	node.mu.Unlock()
	adm, err := c.node.Admit(ctx, []frontier.Candidate{{URL: a.URL("/"), Via: "seed"}, {URL: b.URL("/"), Via: "link", Depth: 1}, {URL: "http://elsewhere.example/", Via: "link"}})
	if err != nil {
		t.Fatal(err)
	}
	if !adm[0].Queued || !adm[1].Queued || !adm[2].OutOfScope {
		t.Errorf("admissions %+v: want queued, queued, out of scope", adm)
	}
	waitFor(t, ctx, "a/ fetched", func() bool { return a.Count("/") == 1 })
	waitFor(t, ctx, "a/'s links diverted", func() bool { d := node.divertedURLs(); return d[a.URL("/p/1")] && d[b.URL("/")] })
	if r := records(t, db)[a.URL("/p/1")]; r != nil {
		t.Errorf("a link was queued locally: %+v", r)
	}

	// b is not served: nothing goes to it, though b/ is queued and held.
	node.mu.Lock()
	node.holds[b.URL("/")] = true
	node.mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	if n := len(b.Log()); n != 0 {
		t.Errorf("%d requests to a host the node does not serve", n)
	}

	// Served now, but b/ is no longer held (decided elsewhere meanwhile):
	// dropped without a request.
	node.mu.Lock()
	node.serves[b.Authority()] = true
	delete(node.holds, b.URL("/"))
	node.mu.Unlock()
	if err := c.node.Serve(ctx, func(string) time.Duration { return 0 }); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "b/ released", func() bool { r := records(t, db)[b.URL("/")]; return r != nil && r.Error == ReleasedReason })
	if b.Count("/") != 0 {
		t.Errorf("b/ was fetched though the node no longer held it")
	}
	node.mu.Lock()
	_, observed := node.decided[b.URL("/")]
	node.mu.Unlock()
	if !observed {
		t.Errorf("the release was not reported to the node")
	}

	// It comes back (held again): queued again and fetched.
	node.mu.Lock()
	node.holds[b.URL("/")] = true
	node.mu.Unlock()
	adm, err = c.node.Admit(ctx, []frontier.Candidate{{URL: b.URL("/"), Via: "link", Depth: 1}})
	if err != nil || !adm[0].Queued {
		t.Fatalf("re-admission: %+v, %v", adm, err)
	}
	waitFor(t, ctx, "b/ fetched", func() bool { return b.Count("/") == 1 })
	// A decided URL is reported with its record.
	waitFor(t, ctx, "b/ recorded", func() bool { r := records(t, db)[b.URL("/")]; return r != nil && r.State == storage.Fetched })
	adm, err = c.node.Admit(ctx, []frontier.Candidate{{URL: a.URL("/"), Via: "seed"}})
	if err != nil || adm[0].Queued || adm[0].Record == nil || adm[0].Record.State != storage.Fetched {
		t.Errorf("admitting a decided URL: %+v, %v", adm, err)
	}

	// Robots.txt files read are reported; one imported from a previous
	// owner decides at once, without a fetch.
	node.mu.Lock()
	got := node.robots[strings.TrimSuffix(a.URL("/"), "/")]
	node.mu.Unlock()
	if got == nil || !strings.Contains(string(got.Body), "Disallow: /nothing") {
		t.Errorf("a's robots.txt not reported to the node: %+v", got)
	}
	origin := strings.TrimSuffix(b.URL("/"), "/")
	imported := &storage.RobotsRecord{FetchedAt: time.Now(), Outcome: "parsed", Status: 200,
		Body: []byte("User-agent: *\nDisallow: /p/\n"), ExpiresAt: time.Now().Add(time.Hour)}
	if err := c.node.ImportRobots(ctx, map[string]*storage.RobotsRecord{origin: imported}); err != nil {
		t.Fatal(err)
	}
	adm, err = c.node.Admit(ctx, []frontier.Candidate{{URL: b.URL("/p/1"), Via: "link", Depth: 1}})
	if err != nil || adm[0].Record == nil || adm[0].Record.State != storage.Disallowed {
		t.Errorf("admitting a URL the imported robots.txt disallows: %+v, %v", adm, err)
	}
	if n := b.Count("/robots.txt"); n != 1 {
		t.Errorf("b's robots.txt fetched %d times, want 1 (the import replaces it)", n)
	}
	// An imported file shows in status as a fetched one does (it said
	// "unknown", or nothing, for a host this node never asked).
	if err := c.node.ImportRobots(ctx, map[string]*storage.RobotsRecord{"http://imported.test": imported}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(st.PerHost, func(h status.Host) bool { return h.Host == "imported.test" })
	if i < 0 || st.PerHost[i].Robots != "parsed (200)" {
		t.Errorf("status of a host whose robots.txt was imported: %+v, want robots parsed (200)", st.PerHost)
	}

	select {
	case err := <-done:
		t.Fatalf("Run returned with the node's frontier empty: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, v := range append(a.Violations(nodeDelay, crawltest.Slack, nil), b.Violations(nodeDelay, crawltest.Slack, nil)...) {
		t.Error(v)
	}
}

func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatalf("%s: not within the test's time", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// addSlowHost adds a host whose /page takes 3 s to answer.
func addSlowHost(w *crawltest.Web) *crawltest.Host {
	return w.AddHost("slow", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/page":       {Body: "<html>slow</html>", Delay: 3 * time.Second},
	})
}

// seedNode admits url to a node's running crawl as a seed.
func seedNode(t *testing.T, ctx context.Context, c *Crawler, url string) {
	t.Helper()
	if _, err := c.node.Admit(ctx, []frontier.Candidate{{URL: url, Via: "seed"}}); err != nil {
		t.Fatal(err)
	}
}

// stopServing hands host to another node, as the cluster does before it
// cuts the host's requests.
func (f *fakeNode) stopServing(host string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.serves[host] = false
}

// TestCancelHosts: a request under way to a host whose shard went to
// another node is cut short at once; its URL stays queued (not failed, no
// backoff), to be fetched by whoever holds it next.
func TestCancelHosts(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	slow := addSlowHost(w)
	node := newFakeNode(slow.Authority())
	node.holds[slow.URL("/page")] = true
	c, db := nodeCrawl(t, node, testConfig(), slow.Authority())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	seedNode(t, ctx, c, slow.URL("/page"))
	waitFor(t, ctx, "the slow request under way", func() bool { return slow.Count("/page") == 1 })
	node.stopServing(slow.Authority())
	start := time.Now()
	if n := c.node.CancelHosts(func(h string) bool { return h == slow.Authority() }); n != 1 {
		t.Fatalf("CancelHosts cut %d requests, want 1", n)
	}
	waitFor(t, ctx, "the request to come back", func() bool {
		n, _ := c.node.InFlight(ctx, func(string) bool { return true })
		return n == 0
	})
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the cut request came back after %v", d)
	}
	if r := records(t, db)[slow.URL("/page")]; r == nil || r.State != storage.Queued {
		t.Errorf("record after the cut: %+v, want still queued", r)
	}
	node.mu.Lock()
	_, reported := node.decided[slow.URL("/page")]
	node.mu.Unlock()
	if reported {
		t.Error("a cut request was reported as an outcome")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestCancelHostsWithdrawsAWaitingTask: with every worker on a slow
// request, a task dispatched to another host waits for a worker. Cutting
// that host (its shard went to another node) frees it at once, not when
// the slow request ends, and its request is never made. So too when the
// task waits at the worker gate after workers were lowered live, and
// when the host is cut again and again (each time dispatched anew): tasks
// taken back still sit in the tasks channel until a worker skips them, and
// must not pile up there (the coordinator would block on a full channel).
func TestCancelHostsWithdrawsAWaitingTask(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int // at start; then lowered to 1
		cuts    int // times the waiting host is cut while it is still served
	}{
		{"one worker", 1, 0},
		{"workers lowered live", 2, 0},
		{"cut again and again", 1, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := crawltest.NewWeb()
			defer w.Close()
			slow := addSlowHost(w)
			other := w.AddHost("other", map[string]*crawltest.Page{
				"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
				"/":           {Body: "<html>other</html>"},
			})
			node := newFakeNode(slow.Authority(), other.Authority())
			node.holds[slow.URL("/page")], node.holds[other.URL("/")] = true, true
			cfg := testConfig()
			cfg.Workers = tc.workers
			c, db := nodeCrawl(t, node, cfg, slow.Authority(), other.Authority())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx) }()
			if tc.workers > 1 {
				// The second worker goroutine stays, and waits at the
				// gate with the next task.
				if _, err := c.Reconfigure(ctx, Live{Workers: 1, DefaultDelay: nodeDelay, MaxDelay: cfg.MaxDelay, Scope: c.cfg.Scope}); err != nil {
					t.Fatal(err)
				}
			}
			seedNode(t, ctx, c, slow.URL("/page"))
			waitFor(t, ctx, "the slow request under way", func() bool { return slow.Count("/page") == 1 })
			seedNode(t, ctx, c, other.URL("/"))
			isOther := func(h string) bool { return h == other.Authority() }
			otherWaits := func() bool {
				n, _ := c.node.InFlight(ctx, isOther)
				return n == 1
			}
			room := 1 + aheadOf(1)
			waitFor(t, ctx, "other's robots.txt task waiting for the worker", otherWaits)
			for i := range tc.cuts {
				// Cut whatever was dispatched to it since.
				c.node.CancelHosts(isOther)
				time.Sleep(10 * time.Millisecond)
				if n := len(c.tasks); n > room {
					t.Fatalf("after %d cuts: %d tasks in the channel, want at most %d (workers and those waiting for one)", i+1, n, room)
				}
			}
			node.stopServing(other.Authority())
			start := time.Now()
			// After repeated cuts the host may have nothing left to cut.
			if n := c.node.CancelHosts(isOther); n > 1 || n == 0 && tc.cuts == 0 {
				t.Fatalf("CancelHosts cut %d tasks, want 1", n)
			}
			waitFor(t, ctx, "other's task to come back", func() bool {
				n, _ := c.node.InFlight(ctx, isOther)
				return n == 0
			})
			if d := time.Since(start); d > time.Second {
				t.Errorf("the waiting task came back after %v, want at once (the slow request takes 3 s)", d)
			}
			if n, _ := c.node.InFlight(ctx, func(h string) bool { return h == slow.Authority() }); n != 1 {
				t.Errorf("slow's request in flight: %d, want 1 (still under way)", n)
			}
			waitFor(t, ctx, "the slow page recorded", func() bool {
				r := records(t, db)[slow.URL("/page")]
				return r != nil && r.State == storage.Fetched
			})
			// The worker then came to the tasks taken back; had it run
			// one, its second result would count as a request ended that
			// never started (in flight -1).
			var inflight int
			waitFor(t, ctx, "the tasks taken back skipped", func() bool {
				return c.do(ctx, func() { inflight = c.inflight }) == nil && inflight <= 0 && c.cuts.Waiting() == 0
			})
			if inflight != 0 {
				t.Errorf("tasks in flight at the end: %d, want 0", inflight)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := other.Count("/robots.txt") + other.Count("/"); n != 0 {
				t.Errorf("%d requests to the cut host, want 0 (the worker must skip a task taken back)", n)
			}
		})
	}
}

// TestCutRobotsHopResumesItsOrigin: a's robots.txt redirects to b, and
// the request for it on b is cut (CancelHosts on b: b's shard went to
// another node). a waited, paused, for that robots.txt; it must take up
// its queue again (asking for robots.txt anew), not stay paused with its
// pages queued.
func TestCutRobotsHopResumesItsOrigin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := crawltest.NewPipeNet()
		web := crawltest.NewWeb()
		defer web.Close()
		a := web.AddPipeHost("a", pn, "a.test", map[string]*crawltest.Page{
			"/robots.txt": {Status: 301, Header: map[string]string{"Location": "http://b.test/robots.txt"}},
			"/":           {Body: "<title>a</title>"},
		})
		b := web.AddPipeHost("b", pn, "b.test", map[string]*crawltest.Page{
			"/robots.txt": {Body: "User-agent: *\nAllow: /\n", Delay: time.Second},
		})
		node := newFakeNode("a.test", "b.test")
		node.holds["http://a.test/"] = true
		cfg := testConfig()
		cfg.Fetch.DialContext = pn.Dial
		cfg.Lookup = pn.Lookup
		c, db := nodeCrawl(t, node, cfg, "a.test", "b.test")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		if _, err := c.node.Admit(ctx, []frontier.Candidate{{URL: "http://a.test/", Via: "seed"}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		if n := b.Count("/robots.txt"); n != 1 {
			t.Fatalf("b's robots.txt asked %d times by now, want 1 (under way)", n)
		}
		if n := c.node.CancelHosts(func(h string) bool { return h == "b.test" }); n != 1 {
			t.Fatalf("CancelHosts cut %d requests, want 1", n)
		}
		time.Sleep(10 * time.Second)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if r := records(t, db)["http://a.test/"]; r == nil || r.State != storage.Fetched {
			t.Errorf("a's page 10 s after the cut: %+v, want fetched", r)
		}
		if n := a.Count("/robots.txt"); n != 2 {
			t.Errorf("a's robots.txt asked %d times, want 2 (again after the cut)", n)
		}
	})
}

// TestNodeToldOfAPageBeforeItIsRecorded: a node is told a held page's
// outcome (its record, and the links in scope it found) as the page comes
// back, while the result still waits to be recorded (here: the state file
// is busy), so that a kill of the process then does not cost that page a
// second fetch by the next owner of its shard.
func TestNodeToldOfAPageBeforeItIsRecorded(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	a := w.AddHost("a", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/": {Body: `<title>home</title><a href="/p/1">1</a><a href="http://elsewhere.example/">out</a>`,
			Delay: 200 * time.Millisecond},
	})
	node := newFakeNode(a.Authority())
	node.holds[a.URL("/")] = true
	c, db := nodeCrawl(t, node, testConfig(a.URL("/")), a.Authority())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	seedNode(t, ctx, c, a.URL("/"))

	// While the page is on its way, something else holds the state file.
	waitFor(t, ctx, "a/ requested", func() bool { return a.Count("/") == 1 })
	locked, release, unlocked := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	unlock := func() { once.Do(func() { close(release) }) }
	defer unlock() // before the state file closes, should the test fail
	go func() {
		unlocked <- db.Update(func(*storage.Tx) error { close(locked); <-release; return nil })
	}()
	<-locked
	waitFor(t, ctx, "the node told of a/", func() bool {
		node.mu.Lock()
		defer node.mu.Unlock()
		_, ok := node.fetched[a.URL("/")]
		return ok
	})
	if r := records(t, db)[a.URL("/")]; r == nil || r.State != storage.Queued {
		t.Errorf("a/ in the state file: %+v; want it still queued (not recorded yet)", r)
	}
	unlock()
	if err := <-unlocked; err != nil {
		t.Fatal(err)
	}
	node.mu.Lock()
	got := node.fetched[a.URL("/")]
	node.mu.Unlock()
	if r := got.rec; r.State != storage.Fetched || r.Status != 200 || r.Title != "home" || r.DiscoveredVia != "seed" ||
		!slices.Contains(r.Links, a.URL("/p/1")) {
		t.Errorf("record told: %+v", r)
	}
	if len(got.found) != 1 || got.found[0].URL != a.URL("/p/1") || got.found[0].Parent != a.URL("/") || got.found[0].Depth != 1 {
		t.Errorf("found told: %+v; want a/p/1 alone (the other link is out of scope)", got.found)
	}

	// Recorded as told.
	waitFor(t, ctx, "a/ recorded", func() bool { r := records(t, db)[a.URL("/")]; return r != nil && r.State == storage.Fetched })
	if r := records(t, db)[a.URL("/")]; r.Title != got.rec.Title || r.Status != got.rec.Status || !slices.Equal(r.Links, got.rec.Links) ||
		!r.FetchedAt.Equal(got.rec.FetchedAt) {
		t.Errorf("recorded %+v\ntold     %+v", r, got.rec)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestAdmitFailureStopsTheCrawl: URLs handed to a node are admitted in the
// batch being built with the crawl's own results, so a storage failure
// while admitting them (here a key bbolt refuses, standing for a damaged
// record or an I/O error) costs that batch: the crawl stops with the error,
// as on any failure to record, rather than run on with results it never
// wrote (a review found the crawl going on without them). The state file
// opens again, as after a crash.
func TestAdmitFailureStopsTheCrawl(t *testing.T) {
	node := newFakeNode("a.test")
	c, db := nodeCrawl(t, node, testConfig(), "a.test")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	long := "http://a.test/" + strings.Repeat("x", 40000)
	if _, err := c.node.Admit(ctx, []frontier.Candidate{{URL: long, Via: "link"}}); err == nil {
		t.Fatal("the admission of a 40 kB key did not fail")
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "admit URLs handed to this node") {
			t.Fatalf("Run returned %v, want the admission's error", err)
		}
	case <-ctx.Done():
		t.Fatal("the crawl went on after the batch was lost")
	}
	cfg := testConfig()
	cfg.Scope, cfg.Node = []string{"a.test"}, node
	if _, err := New(db, cfg); err != nil {
		t.Fatalf("the state file does not open again: %v", err)
	}
}

// runInBackground runs c until stop (deferred by the caller, so that it
// runs before the caller's other defers close what the crawl uses) or
// until limit passes, and returns the run's context; stop fails the test
// if Run returned an error.
func runInBackground(t *testing.T, c *Crawler, limit time.Duration) (ctx context.Context, stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return ctx, func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
