package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MustEmbedded starts an embedded server on a free loopback port with its
// store in a temporary directory, stopped when the test ends.
func MustEmbedded(t testing.TB) *EmbeddedServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := StartEmbedded(ctx, Options{Listen: "127.0.0.1:-1", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// MustJetStream connects to urls (comma-separated) for the test's duration.
func MustJetStream(t testing.TB, urls string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatalf("connect %s: %v", urls, err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// ledger is the test's omniscient observer: every node reports its events
// to it, in real time order, and it fails on any Acquired of a shard that
// another node has not yet reported Lost.
type ledger struct {
	t  testing.TB
	mu sync.Mutex
	// owner and since: who believes it owns each shard, from when.
	owner map[int]string
	since map[int]time.Time
	log   []string
	bad   []string
}

func newLedger(t testing.TB) *ledger {
	return &ledger{t: t, owner: map[int]string{}, since: map[int]time.Time{}}
}

// Write takes the Managers' log lines (warnings) into the event log.
func (l *ledger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, time.Now().Format("15:04:05.000")+" "+strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *ledger) record(node string, e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, fmt.Sprintf("%s %s %s", time.Now().Format("15:04:05.000"), node, e))
	cur, held := l.owner[e.Shard]
	switch e.Kind {
	case Acquired:
		if held {
			l.bad = append(l.bad, fmt.Sprintf("%s acquired shard %d while %s still owned it", node, e.Shard, cur))
		}
		l.owner[e.Shard], l.since[e.Shard] = node, time.Now()
	case Lost:
		if held && cur == node {
			delete(l.owner, e.Shard)
		}
	}
}

// counts returns how many shards each node believes it owns, and the total.
func (l *ledger) counts() (map[string]int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for _, n := range l.owner {
		out[n]++
	}
	return out, len(l.owner)
}

// ownedBy returns the shards node believes it owns.
func (l *ledger) ownedBy(node string) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for s, n := range l.owner {
		if n == node {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// takenAfter reports the latest time at which any of shards was acquired,
// and whether all of them are now held by a node other than from.
func (l *ledger) takenAfter(from string, shards []int) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var last time.Time
	for _, s := range shards {
		n, ok := l.owner[s]
		if !ok || n == from {
			return time.Time{}, false
		}
		if l.since[s].After(last) {
			last = l.since[s]
		}
	}
	return last, true
}

func (l *ledger) check() {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range l.bad {
		l.t.Error(b)
	}
	if len(l.bad) > 0 || l.t.Failed() {
		l.t.Logf("event log:\n%s", joinLines(l.log))
	}
}

func joinLines(s []string) (out string) {
	for _, x := range s {
		out += x + "\n"
	}
	return out
}

// violations returns what the ledger and the watcher found wrong so far.
func (l *ledger) violations() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.bad)
}

// rateClock is a clock that runs at rate times real time (monotonic, as it
// derives from time.Now's monotonic reading).
func rateClock(rate float64) func() time.Time {
	base := time.Now()
	return func() time.Time {
		return base.Add(time.Duration(float64(time.Since(base)) * rate))
	}
}

// errPartition is what a node cut off from the server sees.
var errPartition = errors.New("test: node cut off from the server")

// partitionKV fails every request while down is set, as a node cut off from
// the server would see them fail.
type partitionKV struct {
	kvStore
	down *atomic.Bool
}

func (p partitionKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if p.down.Load() {
		return nil, errPartition
	}
	return p.kvStore.Get(ctx, key)
}

func (p partitionKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	if p.down.Load() {
		return 0, errPartition
	}
	return p.kvStore.Put(ctx, key, value)
}

func (p partitionKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	if p.down.Load() {
		return 0, errPartition
	}
	return p.kvStore.Create(ctx, key, value, opts...)
}

func (p partitionKV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	if p.down.Load() {
		return 0, errPartition
	}
	return p.kvStore.Update(ctx, key, value, rev)
}

func (p partitionKV) Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	if p.down.Load() {
		return errPartition
	}
	return p.kvStore.Delete(ctx, key, opts...)
}

func (p partitionKV) WatchAll(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	if p.down.Load() {
		return nil, errPartition
	}
	return p.kvStore.WatchAll(ctx, opts...)
}

// node is one Manager running in the test, on its own connection.
type node struct {
	name   string
	m      *Manager
	nc     *nats.Conn
	down   atomic.Bool
	cancel context.CancelFunc
	done   chan error
}

// testCluster runs Managers of one crawl against one NATS deployment.
type testCluster struct {
	t        testing.TB
	urls     []string // node i connects to urls[i%len(urls)]
	cfg      Config
	replicas int
	ledger   *ledger
	nodes    map[string]*node
	clocks   map[string]func() time.Time // a node's clock, if not time.Now
	logs     map[string]*lineBuffer      // if set, each node's Info log goes here (else its warnings to the ledger)

	mu  sync.Mutex
	all []*Manager // every Manager started, for watchExclusive
}

// start starts a node named name and its Manager.
func (c *testCluster) start(name string) *node {
	c.t.Helper()
	nc, js := MustJetStream(c.t, c.urls[len(c.nodes)%len(c.urls)])
	cfg := c.cfg
	cfg.Node = name
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(c.ledger, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if c.logs != nil {
		c.logs[name] = &lineBuffer{}
		logger = slog.New(slog.NewTextHandler(c.logs[name], nil))
	}
	m, err := NewManager(ctx, js, cfg, ManagerOptions{
		OnEvent:  func(e Event) { c.ledger.record(name, e) },
		Logger:   logger,
		Replicas: c.replicas,
		Now:      c.clocks[name],
	})
	if err != nil {
		c.t.Fatalf("node %s: %v", name, err)
	}
	n := &node{name: name, m: m, nc: nc, done: make(chan error, 1)}
	c.mu.Lock()
	c.all = append(c.all, m)
	c.mu.Unlock()
	m.leases = partitionKV{m.leases, &n.down}
	m.members = partitionKV{m.members, &n.down}
	runCtx, stop := context.WithCancel(context.Background())
	n.cancel = stop
	go func() { n.done <- m.Run(runCtx) }()
	c.nodes[name] = n
	c.t.Cleanup(func() { c.stop(name) })
	return n
}

// stop is SIGTERM: Run releases everything and returns.
func (c *testCluster) stop(name string) {
	n, ok := c.nodes[name]
	if !ok {
		return
	}
	delete(c.nodes, name)
	n.cancel()
	if err := <-n.done; err != nil {
		c.t.Errorf("node %s: Run: %v", name, err)
	}
	n.nc.Close()
}

// kill is SIGKILL: Run stops renewing and returns without releasing, and the
// connection goes.
func (c *testCluster) kill(name string) {
	n := c.nodes[name]
	n.m.crash.Store(true)
	c.stop(name)
}

// waitFor polls cond until it holds or d passes.
func (c *testCluster) waitFor(what string, d time.Duration, cond func() bool) time.Duration {
	c.t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			counts, total := c.ledger.counts()
			c.t.Fatalf("after %s: still not %s (owned %d: %v)", d, what, total, counts)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// balanced: every shard is owned, each node's count is its fair share or
// less, and the leases bucket agrees with what the nodes believe.
func (c *testCluster) balanced() bool {
	counts, total := c.ledger.counts()
	share := fairShare(c.cfg.Shards, len(c.nodes))
	if total != c.cfg.Shards {
		return false
	}
	for name := range c.nodes {
		if counts[name] > share || counts[name] < c.cfg.Shards/len(c.nodes)-1 {
			return false
		}
	}
	return c.bucketAgrees()
}

// bucketAgrees compares the leases bucket with the ledger.
func (c *testCluster) bucketAgrees() bool {
	for _, n := range c.nodes {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		owners, err := n.m.Owners(ctx)
		cancel()
		if err != nil {
			return false
		}
		for s := range c.cfg.Shards {
			c.ledger.mu.Lock()
			want := c.ledger.owner[s]
			c.ledger.mu.Unlock()
			if owners[s] != want {
				return false
			}
		}
		return true
	}
	return false
}

// watchExclusive samples the Owned view of every Manager ever started,
// continuously until the test ends: a shard held under the same token by X
// in two samples and by Y in a sample taken between them was held by both at
// once (a token names one continuous ownership).
func (c *testCluster) watchExclusive() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var samples atomic.Int64
	sample := func() map[*Manager]map[int]uint64 {
		c.mu.Lock()
		all := slices.Clone(c.all)
		c.mu.Unlock()
		out := make(map[*Manager]map[int]uint64, len(all))
		for _, m := range all {
			out[m] = m.Owned()
		}
		return out
	}
	wg.Go(func() {
		prev, mid := sample(), sample()
		for ctx.Err() == nil {
			next := sample()
			for x, held := range prev {
				for s, tok := range held {
					if next[x][s] != tok {
						continue
					}
					for y, other := range mid {
						if _, both := other[s]; both && y != x {
							c.ledger.mu.Lock()
							c.ledger.bad = append(c.ledger.bad, fmt.Sprintf("watcher: shard %d held by %s and %s at once", s, x.cfg.Node, y.cfg.Node))
							c.ledger.mu.Unlock()
						}
					}
				}
			}
			prev, mid = mid, next
			samples.Add(1)
			time.Sleep(time.Millisecond)
		}
	})
	c.t.Cleanup(func() {
		cancel()
		wg.Wait()
		c.t.Logf("exclusivity watcher: %d samples of every node's Owned()", samples.Load())
	})
}

func keysOf(m map[string]*node) []string { return slices.Sorted(maps.Keys(m)) }

// lineBuffer collects log lines; safe for concurrent use.
type lineBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, strings.Split(strings.TrimSpace(string(p)), "\n")...)
	return len(p), nil
}

// matching returns the lines that contain s.
func (b *lineBuffer) matching(s string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range b.lines {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}
