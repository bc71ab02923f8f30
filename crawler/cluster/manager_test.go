package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testTTL is short so the whole scenario takes seconds; the server sweeps
// expired keys at best every 250 ms, which a 2 s TTL leaves room for.
const testTTL = 2 * time.Second

func TestLeasesEmbedded(t *testing.T) {
	t.Parallel()
	srv := MustEmbedded(t)
	runLeaseScenario(t, []string{srv.ClientURL()}, 1)
}

// runLeaseScenario plays the life of a crawl on one NATS deployment: three
// nodes start, a fourth joins, it stops gracefully, one is killed, one is
// cut off from the server and comes back. Throughout, no shard is ever held
// by two nodes (the ledger checks every event, watchExclusive samples
// Holds), and after each step every shard is owned again with fair shares.
func runLeaseScenario(t *testing.T, urls []string, replicas int) {
	c := &testCluster{
		t: t, urls: urls, replicas: replicas, ledger: newLedger(t), nodes: map[string]*node{},
		cfg: Config{NATS: urls[0], Name: "scenario", Shards: 64, LeaseTTL: testTTL},
	}
	t.Cleanup(c.ledger.check)
	c.watchExclusive()
	settle := testTTL + 5*time.Second

	for _, n := range []string{"a", "b", "c"} {
		c.start(n)
	}
	d := c.waitFor("balanced over a, b, c", settle, c.balanced)
	t.Logf("3 nodes: balanced %s after start", d.Round(time.Millisecond))
	checkLeases(t, c)

	c.start("d")
	d = c.waitFor("balanced after d joined", settle, c.balanced)
	if got := len(c.ledger.ownedBy("d")); got != 16 {
		t.Errorf("d joined and holds %d shards, want its fair share 16", got)
	}
	t.Logf("d joined: it holds 16 of 64 after %s", d.Round(time.Millisecond))

	// d renewed at most a renewal period before it stops, so its leases
	// cannot expire sooner than TTL minus that: a faster handover is no wait.
	handover(t, c, "graceful stop", "d", c.stop, testTTL-newTiming(testTTL).renew)
	handover(t, c, "kill", "c", c.kill, testTTL+3*time.Second)

	b := c.nodes["b"]
	b.down.Store(true)
	shards := c.ledger.ownedBy("b")
	cut := time.Now()
	d = c.waitFor("b's shards with a", settle, func() bool { _, ok := c.ledger.takenAfter("b", shards); return ok })
	t.Logf("b cut off from the server: a holds b's %d shards after %s", len(shards), d.Round(time.Millisecond))
	if len(b.m.Owned()) != 0 {
		t.Errorf("b cut off still believes it owns %v", b.m.Owned())
	}
	if d < testTTL-b.m.tm.margin {
		t.Errorf("b's shards moved %s after b was cut off, sooner than the TTL allows", d)
	}
	_ = cut
	b.down.Store(false)
	d = c.waitFor("balanced after b came back", settle, c.balanced)
	t.Logf("b back: balanced after %s", d.Round(time.Millisecond))
}

// handover stops node how, and checks that its shards are all owned by the
// others, balanced, within limit.
func handover(t *testing.T, c *testCluster, what, name string, how func(string), limit time.Duration) {
	t.Helper()
	shards := c.ledger.ownedBy(name)
	if len(shards) == 0 {
		t.Fatalf("%s: %s owns nothing", what, name)
	}
	start := time.Now()
	how(name)
	c.waitFor("shards of "+name+" taken over", limit+5*time.Second, func() bool {
		_, ok := c.ledger.takenAfter(name, shards)
		return ok
	})
	last, _ := c.ledger.takenAfter(name, shards)
	took := last.Sub(start)
	t.Logf("%s of %s: its %d shards held by %v within %s (limit %s)", what, name, len(shards), keysOf(c.nodes), took.Round(time.Millisecond), limit)
	if took > limit {
		t.Errorf("%s of %s: handover took %s, want at most %s", what, name, took, limit)
	}
	c.waitFor("balanced after "+what, testTTL+5*time.Second, c.balanced)
}

// TestFencingMargin cuts node b off from the server while its clock runs
// slow. Within the margin (a quarter of the TTL) b still stops before a can
// take its shards; far beyond it, the ledger and the watcher catch b and a
// holding the same shards, which shows that they would catch a margin too
// small.
func TestFencingMargin(t *testing.T) {
	t.Parallel()
	srv := MustEmbedded(t)
	for _, tt := range []struct {
		rate     float64
		overlaps bool
	}{
		{0.85, false}, // b sees 15% less time pass: still safe
		{0.40, true},  // b believes for 0.75/0.4 = 1.9 TTL: caught
	} {
		t.Run(fmt.Sprintf("clock rate %.2f", tt.rate), func(t *testing.T) {
			c := &testCluster{
				t: t, urls: []string{srv.ClientURL()}, ledger: newLedger(t), nodes: map[string]*node{},
				cfg:    Config{NATS: srv.ClientURL(), Name: fmt.Sprintf("margin%d", int(tt.rate*100)), Shards: 8, LeaseTTL: testTTL},
				clocks: map[string]func() time.Time{"b": rateClock(tt.rate)},
			}
			if !tt.overlaps {
				t.Cleanup(c.ledger.check)
			}
			c.watchExclusive()
			c.start("a")
			b := c.start("b")
			c.waitFor("balanced", testTTL+5*time.Second, c.balanced)
			shards := c.ledger.ownedBy("b")
			b.down.Store(true)
			c.waitFor("b's shards with a", testTTL+5*time.Second, func() bool { _, ok := c.ledger.takenAfter("b", shards); return ok })
			// b's belief ends at the latest 0.75 TTL / rate after its last renewal.
			c.waitFor("b has let go", testTTL*2, func() bool { return len(b.m.Owned()) == 0 && len(c.ledger.ownedBy("b")) == 0 })
			var byLedger, byWatcher int
			for _, v := range c.ledger.violations() {
				if strings.HasPrefix(v, "watcher:") {
					byWatcher++
				} else {
					byLedger++
				}
			}
			t.Logf("b's clock at %.2f: %d overlaps in the ledger, %d in the watcher's samples", tt.rate, byLedger, byWatcher)
			if tt.overlaps && (byLedger == 0 || byWatcher == 0) {
				t.Errorf("b believed for %.1f TTL, yet a check saw no overlap: it is blind", 0.75/tt.rate)
			}
		})
	}
}

func TestManagerRefusesMismatch(t *testing.T) {
	srv := MustEmbedded(t)
	_, js := MustJetStream(t, srv.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := Config{NATS: srv.ClientURL(), Name: "mismatch", Node: "a", Shards: 8, LeaseTTL: testTTL}
	if _, err := NewManager(ctx, js, cfg, ManagerOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, change := range []func(*Config){
		func(c *Config) { c.Shards = 16 },
		func(c *Config) { c.LeaseTTL = 3 * time.Second },
	} {
		other := cfg
		other.Node = "b"
		change(&other)
		_, err := NewManager(ctx, js, other, ManagerOptions{})
		if !errors.Is(err, ErrMismatch) {
			t.Errorf("shards %d ttl %s: err = %v, want ErrMismatch", other.Shards, other.LeaseTTL, err)
		}
	}
	// The same configuration opens the existing buckets.
	again := cfg
	again.Node = "c"
	if _, err := NewManager(ctx, js, again, ManagerOptions{}); err != nil {
		t.Errorf("same configuration: %v", err)
	}
}

// TestSurvivorsSayWhoseLeasesExpired: when a node dies, the survivors'
// logs say once that its leases expired, which shards were its, and where
// each went; a node that stops on purpose (its leases handed over, not
// expired) is not reported so.
func TestSurvivorsSayWhoseLeasesExpired(t *testing.T) {
	t.Parallel()
	srv := MustEmbedded(t)
	c := &testCluster{
		t: t, urls: []string{srv.ClientURL()}, ledger: newLedger(t), nodes: map[string]*node{}, logs: map[string]*lineBuffer{},
		cfg: Config{NATS: srv.ClientURL(), Name: "obituary", Shards: 8, LeaseTTL: testTTL},
	}
	for _, n := range []string{"a", "b", "c"} {
		c.start(n)
	}
	c.waitFor("balanced over a, b, c", testTTL+5*time.Second, c.balanced)
	shards := c.ledger.ownedBy("c")
	c.kill("c")
	c.waitFor("c's shards taken over", testTTL+5*time.Second, func() bool { _, ok := c.ledger.takenAfter("c", shards); return ok })
	owner := map[int]string{}
	for _, n := range []string{"a", "b"} {
		for _, s := range c.ledger.ownedBy(n) {
			owner[s] = n
		}
	}
	var want []string
	for _, s := range shards {
		want = append(want, fmt.Sprintf("%d→%s", s, owner[s]))
	}
	moved := fmt.Sprintf("moved=\"%s\"", strings.Join(want, " "))
	c.waitFor("a survivor saying where c's shards went", 5*time.Second, func() bool {
		return len(c.logs["a"].matching(moved))+len(c.logs["b"].matching(moved)) > 0
	})
	for _, n := range []string{"a", "b"} {
		expired := c.logs[n].matching("level=WARN")
		if len(expired) > 1 {
			t.Errorf("%s said it %d times: %q", n, len(expired), expired)
		}
		for _, l := range expired {
			if !strings.Contains(l, "expired_node=c") || !strings.Contains(l, fmt.Sprintf("shards=\"%v\"", shards)) {
				t.Errorf("%s: %q, want c and its shards %v\n%s", n, l, shards, strings.Join(c.logs[n].matching(""), "\n"))
			}
		}
	}
	if len(c.logs["a"].matching("expired_node=c"))+len(c.logs["b"].matching("expired_node=c")) < 2 {
		t.Errorf("no survivor said whose leases expired and where its shards went:\na: %q\nb: %q", c.logs["a"].matching(""), c.logs["b"].matching(""))
	}

	c.stop("b")
	c.waitFor("balanced on a alone", testTTL+5*time.Second, c.balanced)
	if l := c.logs["a"].matching("expired_node=b"); len(l) > 0 {
		t.Errorf("b stopped on purpose, yet a says its leases expired: %q", l)
	}
}
