package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// fakeEngine is an Engine that fetches nothing, for a Node's unit tests.
// It records every call, in order; queues what Admit is given (a URL it
// was told it decided before is answered with its record, one of a host
// it was told is out of scope with OutOfScope); holds hosts as the
// frontier does (the latest hold wins); keeps what Learn gives it of each
// host; and decides a URL when the test says so, telling the node as
// crawler.Crawler does: the links found through Divert, then Decided with
// the record. InFlight counts the hosts the test marked busy, and
// CancelHosts makes them idle (their requests cut short, their URLs still
// queued).
//
// It is safe for concurrent use. It calls the node only outside its own
// lock: the node calls CancelHosts under its.
type fakeEngine struct {
	node *Node

	mu      sync.Mutex
	calls   []engineCall
	known   map[string]bool               // hosts met: admitted, timed or busy
	queued  map[string]bool               // admitted, not decided here
	before  map[string]*storage.URLRecord // decided here before: Admit answers with these
	outside map[string]bool               // hosts out of the crawl's scope
	decided map[string]int                // times each URL was decided here
	holds   map[string]time.Time          // each host's hold (HoldHosts)
	busy    map[string]bool               // hosts with a request under way
	timing  map[string]storage.HostRecord // what HostRecords answers
	learnt  map[string]storage.HostRecord // what Learn was given last, by host
}

// engineCall is one call a node made to its engine.
type engineCall struct {
	op string // admit, learn, hold, robots, serve, cancel
	// admit: the URLs given; learn, robots: the hosts, the origins;
	// serve: the hosts the node serves from then on; cancel: the known
	// hosts match selected.
	items []string
	until map[string]time.Time     // hold: as given
	held  map[string]time.Time     // serve: each served host's hold then
	hold  map[string]time.Duration // serve: hold(host) of each served host
	at    time.Time
}

func newFakeEngine(n *Node) *fakeEngine {
	return &fakeEngine{node: n, known: map[string]bool{}, queued: map[string]bool{}, before: map[string]*storage.URLRecord{},
		outside: map[string]bool{}, decided: map[string]int{}, holds: map[string]time.Time{}, busy: map[string]bool{},
		timing: map[string]storage.HostRecord{}, learnt: map[string]storage.HostRecord{}}
}

// note records a call; f.mu is held.
func (f *fakeEngine) note(c engineCall) {
	c.at = time.Now()
	f.calls = append(f.calls, c)
}

func (f *fakeEngine) Admit(ctx context.Context, cands []frontier.Candidate) ([]crawler.Admission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]crawler.Admission, len(cands))
	urls := make([]string, len(cands))
	for i, c := range cands {
		urls[i] = c.URL
		host := urlnorm.Authority(c.URL)
		a := crawler.Admission{URL: c.URL}
		switch rec := f.before[c.URL]; {
		case f.outside[host]:
			a.OutOfScope = true
		case rec != nil:
			r := *rec
			a.Record = &r
		default:
			f.known[host] = true
			f.queued[c.URL] = true
			a.Queued = true
		}
		out[i] = a
	}
	f.note(engineCall{op: "admit", items: urls})
	return out, nil
}

func (f *fakeEngine) Learn(ctx context.Context, learnt map[string]storage.HostRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	maps.Copy(f.learnt, learnt)
	for host := range learnt {
		f.known[host] = true
	}
	f.note(engineCall{op: "learn", items: slices.Sorted(maps.Keys(learnt))})
	return nil
}

func (f *fakeEngine) HoldHosts(ctx context.Context, until map[string]time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for host, t := range until {
		f.known[host] = true
		if t.After(f.holds[host]) {
			f.holds[host] = t
		}
	}
	f.note(engineCall{op: "hold", until: maps.Clone(until)})
	return nil
}

func (f *fakeEngine) ImportRobots(ctx context.Context, recs map[string]*storage.RobotsRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.note(engineCall{op: "robots", items: slices.Sorted(maps.Keys(recs))})
	return nil
}

// Serve records which known hosts the node serves now (what the engine
// unfences), with their holds.
func (f *fakeEngine) Serve(ctx context.Context, hold func(host string) time.Duration) error {
	f.mu.Lock()
	hosts := slices.Sorted(maps.Keys(f.known))
	f.mu.Unlock()
	var served []string
	for _, h := range hosts {
		if f.node.Serves(h) {
			served = append(served, h)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c := engineCall{op: "serve", items: served, held: map[string]time.Time{}, hold: map[string]time.Duration{}}
	for _, h := range served {
		c.held[h], c.hold[h] = f.holds[h], hold(h)
	}
	f.note(c)
	return nil
}

func (f *fakeEngine) HostRecords(ctx context.Context, match func(host string) bool) (map[string]storage.HostRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]storage.HostRecord{}
	for h, r := range f.timing {
		if match(h) {
			out[h] = r
		}
	}
	return out, nil
}

func (f *fakeEngine) InFlight(ctx context.Context, match func(host string) bool) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for h := range f.busy {
		if match(h) {
			n++
		}
	}
	return n, nil
}

func (f *fakeEngine) CancelHosts(match func(host string) bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var cut []string
	n := 0
	for _, h := range slices.Sorted(maps.Keys(f.known)) {
		if match(h) {
			cut = append(cut, h)
			if f.busy[h] {
				delete(f.busy, h)
				n++
			}
		}
	}
	f.note(engineCall{op: "cancel", items: cut})
	return n
}

// decide decides url here, as the engine does after a fetch: the links
// found go to the node (Divert), then the outcome and its record
// (Decided). The record's Title names who decided it.
func (f *fakeEngine) decide(url string, state storage.State, title string, links ...string) {
	rec := &storage.URLRecord{URL: url, State: state, Status: 200, Title: title, Links: links}
	if state != storage.Fetched {
		rec.Status = 500
	}
	f.mu.Lock()
	delete(f.queued, url)
	f.decided[url]++
	f.mu.Unlock()
	for _, l := range links {
		f.node.Divert(frontier.Candidate{URL: l, Depth: 1, Via: "link", Parent: url})
	}
	f.node.Decided(crawler.Event{URL: url, State: string(state), Status: rec.Status}, rec)
}

// decidedBefore makes Admit answer rec.URL with rec.
func (f *fakeEngine) decidedBefore(rec *storage.URLRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.before[rec.URL] = rec
}

// outOfScope makes Admit answer the URLs of host with OutOfScope.
func (f *fakeEngine) outOfScope(host string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outside[host] = true
}

// meet makes hosts known here, as hosts in the engine's state file are.
func (f *fakeEngine) meet(hosts ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range hosts {
		f.known[h] = true
	}
}

// setBusy marks hosts as having a request under way (InFlight counts them).
func (f *fakeEngine) setBusy(hosts ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range hosts {
		f.known[h], f.busy[h] = true, true
	}
}

func (f *fakeEngine) log() []engineCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// admissions counts the Admit calls that were given url.
func (f *fakeEngine) admissions(url string) int {
	n := 0
	for _, c := range f.log() {
		if c.op == "admit" && slices.Contains(c.items, url) {
			n++
		}
	}
	return n
}

func (f *fakeEngine) decisions(url string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.decided[url]
}

// first returns the index of the first call of op that ok accepts, or -1.
func first(calls []engineCall, op string, ok func(engineCall) bool) int {
	return slices.IndexFunc(calls, func(c engineCall) bool { return c.op == op && ok(c) })
}

func lists(item string) func(engineCall) bool {
	return func(c engineCall) bool { return slices.Contains(c.items, item) }
}

func holds(host string) func(engineCall) bool {
	return func(c engineCall) bool { _, ok := c.until[host]; return ok }
}

// admitsHost accepts an Admit given a URL of host.
func admitsHost(host string) func(engineCall) bool {
	return func(c engineCall) bool {
		return slices.ContainsFunc(c.items, func(u string) bool { return urlnorm.Authority(u) == host })
	}
}

// engineNode is a Node attached to a fakeEngine and its own state file.
type engineNode struct {
	*Node
	eng  *fakeEngine
	logs func() string
	stop context.CancelFunc
	done chan error
}

// engineConfig is a crawl of four shards with 2 s leases.
func engineConfig(srv *EmbeddedServer, crawl string) Config {
	return Config{NATS: srv.ClientURL(), Name: crawl, Shards: 4, LeaseTTL: testTTL}
}

// engineDefaultDelay is the nodes' politeness.default_delay.
const engineDefaultDelay = 300 * time.Millisecond

// engineAdaptive is the nodes' adaptive delay: politeness.latency_factor
// 10 and error_backoff, as by default.
var engineAdaptive = frontier.Adaptive{LatencyFactor: 10, ErrorBackoff: true}

// dialEngineNode dials node name of cfg's crawl and attaches a fakeEngine;
// run starts it. Its host timing is written only when it hands a shard
// over (HostSync is an hour), and it never reports the crawl drained. It
// is closed (its shards handed over) when the test ends; its log is shown
// if the test failed.
func dialEngineNode(t *testing.T, cfg Config, name string) *engineNode {
	t.Helper()
	cfg.Node = name
	log, logs := captureLog(slog.LevelInfo)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := DialNode(ctx, cfg, NodeOptions{Logger: log, DefaultDelay: engineDefaultDelay, Adaptive: engineAdaptive, HostSync: time.Hour,
		DrainChecks: 1 << 20, DrainEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(filepath.Join(t.TempDir(), name+".db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		n.nc.Close()
		t.Fatal(err)
	}
	e := &engineNode{Node: n, eng: newFakeEngine(n), logs: logs}
	n.Attach(e.eng, db)
	t.Cleanup(func() {
		if e.stop != nil {
			e.stop()
			<-e.done
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			n.Close(ctx)
			cancel()
		}
		n.nc.Close()
		_ = db.Close()
		if t.Failed() {
			t.Logf("node %s's log:\n%s", name, logs())
		}
	})
	return e
}

// run starts the node's part in the crawl.
func (e *engineNode) run() {
	ctx, stop := context.WithCancel(context.Background())
	e.stop, e.done = stop, make(chan error, 1)
	go func() { e.done <- e.Run(ctx) }()
}

// within polls cond every 10 ms until it holds, or fails the test after d.
func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// seed hands URLs to the crawl as the seed command does.
func seed(t *testing.T, cfg Config, urls ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.Node = "seeder"
	cl, err := DialClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Seed(ctx, urls); err != nil {
		t.Fatal(err)
	}
}

// summary reads the crawl's summary as the status command does.
func summary(t *testing.T, cfg Config) *Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.Node = "status"
	cl, err := DialClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	s, err := cl.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitUndecided waits up to 5 s for the crawl to have want URLs undecided.
func waitUndecided(t *testing.T, cfg Config, want uint64, what string) {
	t.Helper()
	var got uint64
	deadline := time.Now().Add(5 * time.Second)
	for got = summary(t, cfg).Undecided; got != want; got = summary(t, cfg).Undecided {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d URLs undecided after 5s, want %d", what, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// putJSON writes v as key's value in kv.
func putJSON(t *testing.T, kv jetstream.KeyValue, key string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := kv.Put(ctx, key, b); err != nil {
		t.Fatal(err)
	}
}

// recordOf reads url's record from the crawl's records bucket; nil if it
// has none.
func recordOf(t *testing.T, kv jetstream.KeyValue, url string) *storage.URLRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := kv.Get(ctx, urlKey(url))
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeRecordValue(e.Value())
	if err != nil {
		t.Fatal(err)
	}
	var r storage.URLRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// after says when t is, from base ("not held" for no time).
func after(base, t time.Time) string {
	if t.IsZero() {
		return "never (not held)"
	}
	return fmt.Sprintf("+ %v", t.Sub(base))
}

// hostsByShard returns per hosts named prefix<i>.example for each of
// shards shards.
func hostsByShard(prefix string, shards, per int) map[int][]string {
	out := map[int][]string{}
	for i, full := 0, 0; full < shards; i++ {
		h := fmt.Sprintf("%s%d.example", prefix, i)
		s := Shard(h, shards)
		if len(out[s]) < per {
			if out[s] = append(out[s], h); len(out[s]) == per {
				full++
			}
		}
	}
	return out
}

// TestNodeTakesAShard: a node that takes a shard holds each of its hosts
// before the engine queues any URL of it (a host in the hosts bucket
// until the previous owner's interval has passed, a host met first in a
// message a default delay from the take-over), admits the shard's backlog,
// imports its robots.txt files, and only then lets the engine serve its
// hosts (Serve), each held as the hosts bucket said.
func TestNodeTakesAShard(t *testing.T) {
	srv := MustEmbedded(t)
	cfg := engineConfig(srv, "taken")
	a := dialEngineNode(t, cfg, "a")
	const known = "known.example"
	shard := Shard(known, cfg.Shards)
	fresh := hostsByShard("fresh", cfg.Shards, 1)[shard][0] // same shard, not in the hosts bucket
	last := time.Now()
	putJSON(t, a.hosts, hostKey(shard, known), hostTiming{Host: known, LastRequest: last, Interval: 5})
	origin := "http://" + known
	putJSON(t, a.robots, hostKey(shard, origin), robotsEntry{Origin: origin,
		Record: &storage.RobotsRecord{Outcome: "parsed", Status: 200, Body: []byte("User-agent: *\nDisallow: /private\n")}})
	backlog := []string{"http://known.example/1", "http://known.example/2", "http://" + fresh + "/1"}
	seed(t, cfg, backlog...)
	a.eng.meet(known, fresh) // so that a Serve too early shows
	start := time.Now()
	a.run()
	within(t, 10*time.Second, "the backlog admitted and the shard's hosts served", func() bool {
		calls := a.eng.log()
		for _, u := range backlog {
			if first(calls, "admit", lists(u)) < 0 {
				return false
			}
		}
		return first(calls, "serve", lists(known)) >= 0 && first(calls, "serve", lists(fresh)) >= 0
	})

	calls := a.eng.log()
	serve := first(calls, "serve", lists(known))
	for _, host := range []string{known, fresh} {
		held, admitted := first(calls, "hold", holds(host)), first(calls, "admit", admitsHost(host))
		if held < 0 || admitted < 0 || held > admitted {
			t.Errorf("%s: first held at call %d, first admitted at call %d: want held before its URLs are queued", host, held, admitted)
		}
	}
	for _, u := range backlog {
		if i := first(calls, "admit", lists(u)); i < 0 || i > serve {
			t.Errorf("%s admitted at call %d, the shard served at call %d: want the backlog admitted before the hosts are served", u, i, serve)
		}
	}
	timed := first(calls, "hold", func(c engineCall) bool { return !c.until[known].Before(last.Add(5 * time.Second)) })
	robots := first(calls, "robots", lists(origin))
	if timed < 0 || robots < 0 || !(timed < robots && robots < serve) {
		t.Errorf("held as the hosts bucket says at call %d, robots.txt imported at %d, served at %d: want them in this order", timed, robots, serve)
	}
	s := calls[serve]
	if got := s.held[known]; got.Before(last.Add(5 * time.Second)) {
		t.Errorf("%s served held until %s, want last request + 5s (its interval) at least", known, after(last, got))
	}
	if got := s.held[fresh]; got.Before(start.Add(engineDefaultDelay)) {
		t.Errorf("%s served held until %s, want start + the default delay (%v) at least", fresh, after(start, got), engineDefaultDelay)
	}
	if s.hold[known] != engineDefaultDelay {
		t.Errorf("Serve's hold(%s) = %v, want the default delay %v", known, s.hold[known], engineDefaultDelay)
	}
	for _, u := range backlog {
		if !a.Holds(u) || a.eng.admissions(u) != 1 {
			t.Errorf("%s: held %v, admitted %d times; want held, admitted once", u, a.Holds(u), a.eng.admissions(u))
		}
	}
}

// TestNodeAdmitsABatch: each seeded URL reaches the engine once (one
// seeded twice is one); one decided in the crawl's records bucket is
// acknowledged without reaching it, as is one out of scope; one the engine
// decided here before is written to the records bucket with the links it
// found sent on. Deciding a URL writes its record, acknowledges its
// message and publishes its links, which come back to Admit.
func TestNodeAdmitsABatch(t *testing.T) {
	srv := MustEmbedded(t)
	cfg := engineConfig(srv, "batch")
	a := dialEngineNode(t, cfg, "a")
	const (
		one, two = "http://a.example/1", "http://a.example/2"
		old      = "http://a.example/old"  // decided in the records bucket
		here     = "http://a.example/here" // decided by this engine before
		outside  = "http://z.example/"     // out of the crawl's scope
		fromHere = "http://b.example/from-here"
		link     = "http://b.example/x"
	)
	b, _ := encodeRecord(&storage.URLRecord{URL: old, State: storage.Failed, Status: 500, Title: "elsewhere"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := a.records.Put(ctx, urlKey(old), b); err != nil {
		t.Fatal(err)
	}
	a.eng.decidedBefore(&storage.URLRecord{URL: here, State: storage.Fetched, Status: 200, Title: "before", Links: []string{fromHere}})
	a.eng.outOfScope("z.example")
	seed(t, cfg, one, "HTTP://A.EXAMPLE:80/1", two, old, here, outside)
	a.run()
	within(t, 10*time.Second, "the seeds and what was found before admitted", func() bool {
		return a.eng.admissions(one) > 0 && a.eng.admissions(two) > 0 && a.eng.admissions(fromHere) > 0 && a.eng.admissions(outside) > 0
	})
	if n := a.eng.admissions(old); n != 0 {
		t.Errorf("%s, decided in the records bucket, admitted %d times: want acknowledged without", old, n)
	}
	waitUndecided(t, cfg, 3, "the messages of what is decided acknowledged") // one, two, fromHere
	if r := recordOf(t, a.records, here); r == nil || r.Title != "before" {
		t.Errorf("records bucket has %+v for %s, want the record decided here before", r, here)
	}
	if r := recordOf(t, a.records, outside); r != nil {
		t.Errorf("records bucket has %+v for %s, out of scope: want none", r, outside)
	}

	a.eng.decide(one, storage.Fetched, "a", link, two)
	within(t, 5*time.Second, "the link found admitted", func() bool { return a.eng.admissions(link) > 0 })
	waitUndecided(t, cfg, 3, "the decided URL's message acknowledged") // two, fromHere, link
	if r := recordOf(t, a.records, one); r == nil || r.State != storage.Fetched || r.Title != "a" {
		t.Errorf("records bucket has %+v for %s, want its record", r, one)
	}
	if a.Holds(one) || !a.Holds(two) || !a.Holds(link) {
		t.Errorf("holds %s %v, %s %v, %s %v: want only the undecided held", one, a.Holds(one), two, a.Holds(two), link, a.Holds(link))
	}
	for u, want := range map[string]int{one: 1, two: 1, here: 1, fromHere: 1, link: 1, old: 0} {
		if got := a.eng.admissions(u); got != want {
			t.Errorf("%s admitted %d times, want %d", u, got, want)
		}
	}
	s := summary(t, cfg)
	if s.Counts["fetched"] != 2 || s.Counts["failed"] != 1 {
		t.Errorf("summary counts %v, want 2 fetched (%s, %s), 1 failed (%s)", s.Counts, here, one, old)
	}
}

// TestNodeHandsShardsOver: a node joins; the first node hands it half the
// shards. The first node's requests still under way to the moved shards'
// hosts are cut short (CancelHosts selects those hosts and no others), and
// their timing goes to the new owner, which holds them accordingly. Every
// URL of the moved shards the first node admitted and had not decided is
// admitted by the new owner, once (handed over, not lost); one decided
// before is not; and the first node's engine deciding a moved URL late
// writes nothing (it is no longer held there): the new owner's decision is
// the URL's record.
func TestNodeHandsShardsOver(t *testing.T) {
	srv := MustEmbedded(t)
	cfg := engineConfig(srv, "handover")
	a := dialEngineNode(t, cfg, "a")
	byShard := hostsByShard("h", cfg.Shards, 2)
	var hosts, open []string
	for _, hs := range byShard {
		for _, h := range hs {
			hosts = append(hosts, h)
			open = append(open, "http://"+h+"/open")
			seed(t, cfg, "http://"+h+"/done", "http://"+h+"/open")
		}
	}
	a.run()
	within(t, 10*time.Second, "every URL admitted and every shard served", func() bool {
		for _, h := range hosts {
			if a.eng.admissions("http://"+h+"/open") == 0 || a.eng.admissions("http://"+h+"/done") == 0 || !a.Serves(h) {
				return false
			}
		}
		return true
	})
	for _, h := range hosts {
		a.eng.decide("http://"+h+"/done", storage.Fetched, "a")
	}
	waitUndecided(t, cfg, uint64(len(open)), "the decided URLs acknowledged")
	requested := time.Now()
	a.eng.mu.Lock()
	for _, h := range hosts {
		a.eng.timing[h] = storage.HostRecord{LastRequest: requested, Interval: 3}
	}
	a.eng.mu.Unlock()
	a.eng.setBusy(hosts...) // a request to every host under way

	b := dialEngineNode(t, cfg, "b")
	b.run()
	var moved []int
	within(t, 10*time.Second, "half the shards moved to b and served there", func() bool {
		if len(a.Manager().Owned()) != 2 || len(b.Manager().Owned()) != 2 {
			return false
		}
		moved = slices.Sorted(maps.Keys(b.Manager().Owned()))
		for _, s := range moved {
			for _, h := range byShard[s] {
				// Serves turns true just before the engine is told to serve.
				if b.eng.admissions("http://"+h+"/open") == 0 || first(b.eng.log(), "serve", lists(h)) < 0 {
					return false
				}
			}
		}
		return true
	})

	var cut []string
	for _, c := range a.eng.log() {
		if c.op == "cancel" {
			cut = append(cut, c.items...)
		}
	}
	var movedHosts []string
	for _, s := range moved {
		movedHosts = append(movedHosts, byShard[s]...)
	}
	slices.Sort(cut)
	slices.Sort(movedHosts)
	if !slices.Equal(cut, movedHosts) {
		t.Errorf("a's engine cut requests to %v, want the moved shards' (%v) hosts %v", cut, moved, movedHosts)
	}
	serve := b.eng.log()
	for _, h := range movedHosts {
		i := first(serve, "serve", lists(h))
		if got := serve[i].held[h]; !b.Serves(h) || got.Before(requested.Add(3*time.Second)) {
			t.Errorf("b serves %s (%v) held until %s, want served, held until a's last request + 3s (its interval) at least", h, b.Serves(h), after(requested, got))
		}
	}
	for s, hs := range byShard {
		for _, h := range hs {
			u := "http://" + h + "/open"
			want, holder, other := 0, a, b
			if slices.Contains(moved, s) {
				want, holder, other = 1, b, a
			}
			if got := b.eng.admissions(u); got != want {
				t.Errorf("%s (shard %d) admitted %d times by b, want %d", u, s, got, want)
			}
			if !holder.Holds(u) || other.Holds(u) {
				t.Errorf("%s (shard %d): held by a %v, by b %v", u, s, a.Holds(u), b.Holds(u))
			}
			if n := b.eng.admissions("http://" + h + "/done"); n != 0 {
				t.Errorf("http://%s/done, decided by a, admitted %d times by b", h, n)
			}
		}
	}
	if t.Failed() {
		return
	}

	late := "http://" + byShard[moved[0]][0] + "/open"
	a.eng.decide(late, storage.Failed, "a, late")
	within(t, 5*time.Second, "a's finisher idle", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.jobs) == 0 && !a.busy
	})
	if r := recordOf(t, a.records, late); r != nil {
		t.Errorf("a decided %s after handing it over, and wrote its record (%s, %q): want nothing written", late, r.State, r.Title)
	}
	b.eng.decide(late, storage.Fetched, "b")
	waitUndecided(t, cfg, uint64(len(open)-1), "b's decision acknowledged")
	if r := recordOf(t, b.records, late); r == nil || r.Title != "b" {
		t.Errorf("records bucket has %+v for %s, want b's decision", r, late)
	}
}

// TestNodeTakesTheLearntDelay: a node's engine had slowed two hosts of
// every shard down to 4 s (floor 1 s): one answering in 400 ms (10 × its
// time to first byte), one failing (the error delay); a third it spaced
// by its floor. A node joins and takes half the shards; for each host of
// them it is given, it holds the host (the engine makes no request to a
// host before its hold) until at least the delay in force on the first
// node after that node's last request (4 s for the first two, not 1 s),
// and gives its engine what the first node learnt, which the host's
// delay continues from, and the status of the host's last answer there,
// which status shows until the host answers the new owner.
func TestNodeTakesTheLearntDelay(t *testing.T) {
	srv := MustEmbedded(t)
	cfg := engineConfig(srv, "learnt")
	a := dialEngineNode(t, cfg, "a")
	byShard := hostsByShard("slow", cfg.Shards, 3)
	var hosts []string
	for _, hs := range byShard {
		for _, h := range hs {
			hosts = append(hosts, h)
			seed(t, cfg, "http://"+h+"/")
		}
	}
	a.run()
	within(t, 10*time.Second, "every URL admitted and every shard served by a", func() bool {
		for _, h := range hosts {
			if a.eng.admissions("http://"+h+"/") == 0 || !a.Serves(h) {
				return false
			}
		}
		return true
	})
	const floor, learnt = time.Second, 4 * time.Second
	requested := time.Now()
	want := map[string]storage.HostRecord{}
	delay := map[string]time.Duration{} // in force on a
	a.eng.mu.Lock()
	for _, hs := range byShard {
		want[hs[0]] = storage.HostRecord{LastRequest: requested, Interval: floor.Seconds(), TTFBMs: 400, LastStatus: 200}
		want[hs[1]] = storage.HostRecord{LastRequest: requested, Interval: floor.Seconds(), ErrorDelayS: learnt.Seconds(), LastStatus: 503}
		want[hs[2]] = storage.HostRecord{LastRequest: requested, Interval: floor.Seconds(), LastStatus: 404}
		delay[hs[0]], delay[hs[1]], delay[hs[2]] = learnt, learnt, floor
	}
	maps.Copy(a.eng.timing, want)
	a.eng.mu.Unlock()
	for h, r := range want {
		if got := engineAdaptive.InForce(engineDefaultDelay, r); got != delay[h] {
			t.Fatalf("%s: the delay in force on a is %v, want %v", h, got, delay[h])
		}
	}

	b := dialEngineNode(t, cfg, "b")
	b.run()
	var moved []int
	within(t, 10*time.Second, "half the shards moved to b and served there", func() bool {
		if len(b.Manager().Owned()) != 2 {
			return false
		}
		moved = slices.Sorted(maps.Keys(b.Manager().Owned()))
		for _, s := range moved {
			for _, h := range byShard[s] {
				if first(b.eng.log(), "serve", lists(h)) < 0 {
					return false
				}
			}
		}
		return true
	})
	calls := b.eng.log()
	for _, s := range moved {
		for _, h := range byShard[s] {
			serve := first(calls, "serve", lists(h))
			if got := calls[serve].held[h]; got.Before(requested.Add(delay[h])) {
				t.Errorf("b serves %s held until a's last request %s, want + %v at least (the delay in force on a; its floor is %v)",
					h, after(requested, got), delay[h], floor)
			}
			learn := first(calls, "learn", lists(h))
			if learn < 0 || learn > serve {
				t.Errorf("%s: given what a learnt at call %d, served at call %d: want given it before it is served", h, learn, serve)
			}
			b.eng.mu.Lock()
			got := b.eng.learnt[h]
			b.eng.mu.Unlock()
			if w := want[h]; got.TTFBMs != w.TTFBMs || got.ErrorDelayS != w.ErrorDelayS || got.LastStatus != w.LastStatus {
				t.Errorf("%s: b's engine learnt ttfb %v ms, error delay %v s, last status %d; want a's %v ms, %v s, %d",
					h, got.TTFBMs, got.ErrorDelayS, got.LastStatus, w.TTFBMs, w.ErrorDelayS, w.LastStatus)
			}
		}
	}
}

// TestNodeKilledBetweenAdmitAndAck: a node admits a URL and is killed
// before deciding it (its connection closed: no hand-over, its message
// never acknowledged). Its leases end; its engine, were it still running,
// has its requests to the shards' hosts cut short before another node can
// take them. The next owner gets the URL in Admit, and not the one the
// dead node had decided; decided there, the URL has one record, and the
// crawl nothing undecided.
func TestNodeKilledBetweenAdmitAndAck(t *testing.T) {
	srv := MustEmbedded(t)
	cfg := engineConfig(srv, "killed")
	a := dialEngineNode(t, cfg, "a")
	const u, v, host = "http://k.example/u", "http://k.example/v", "k.example"
	seed(t, cfg, u, v)
	a.run()
	within(t, 10*time.Second, "both URLs admitted by a", func() bool { return a.eng.admissions(u) == 1 && a.eng.admissions(v) == 1 })
	a.eng.decide(v, storage.Fetched, "a")
	waitUndecided(t, cfg, 1, "a's decision acknowledged")
	a.eng.setBusy(host) // u's request under way

	killed := time.Now()
	a.nc.Close()
	b := dialEngineNode(t, cfg, "b")
	b.run()
	within(t, 3*testTTL+5*time.Second, "u admitted by b", func() bool { return b.eng.admissions(u) > 0 })
	admitted := b.eng.log()[first(b.eng.log(), "admit", lists(u))].at
	t.Logf("u admitted by b %v after a was killed", admitted.Sub(killed).Round(time.Millisecond))

	cancelled := first(a.eng.log(), "cancel", lists(host))
	if cancelled < 0 {
		t.Errorf("a's engine never had its requests to %s cut short", host)
	} else if at := a.eng.log()[cancelled].at; !at.Before(admitted) {
		t.Errorf("a's requests to %s cut %v after b admitted u: want before", host, at.Sub(admitted))
	}
	if a.Holds(u) {
		t.Errorf("a still holds %s after its lease ended", u)
	}
	b.eng.decide(u, storage.Fetched, "b")
	waitUndecided(t, cfg, 0, "b's decision acknowledged")
	if r := recordOf(t, b.records, u); r == nil || r.Title != "b" {
		t.Errorf("records bucket has %+v for %s, want b's decision", r, u)
	}
	if n, m := b.eng.admissions(v), a.eng.decisions(u); n != 0 || m != 0 {
		t.Errorf("b admitted %s (decided by a) %d times, a decided %s %d times: want 0, 0", v, n, u, m)
	}
	if s := summary(t, cfg); s.Counts["fetched"] != 2 {
		t.Errorf("summary counts %v, want 2 fetched", s.Counts)
	}
}
