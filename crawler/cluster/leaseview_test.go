package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
)

// checkLeases: what the console's cluster section shows from any node
// (Manager.Leases, status.NewCluster) agrees with the ledger: every shard
// leased to its owner, renewed within the TTL, each node's shards and its
// last renewal.
func checkLeases(t *testing.T, c *testCluster) {
	t.Helper()
	for _, n := range c.nodes {
		// A lease renewed late on a loaded machine may be missing for a
		// moment (its key expired and is being taken again): read again,
		// for a bounded time, before calling a lease lost.
		var leases []status.Lease
		for deadline := time.Now().Add(testTTL); ; time.Sleep(50 * time.Millisecond) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			var err error
			leases, err = n.m.Leases(ctx)
			cancel()
			if err != nil {
				t.Fatalf("Leases: %v", err)
			}
			if len(leases) == c.cfg.Shards || time.Now().After(deadline) {
				break
			}
		}
		if len(leases) != c.cfg.Shards {
			t.Fatalf("%d leases, want %d", len(leases), c.cfg.Shards)
		}
		now := time.Now()
		c.ledger.mu.Lock()
		for _, l := range leases {
			if want := c.ledger.owner[l.Shard]; l.Node != want {
				t.Errorf("shard %d: lease says %s, ledger %s", l.Shard, l.Node, want)
			}
			if age := now.Sub(l.Renewed); age < -time.Second || age > testTTL {
				t.Errorf("shard %d: renewed %v ago, want within the TTL %v", l.Shard, age, testTTL)
			}
		}
		c.ledger.mu.Unlock()
		cl := status.NewCluster(c.cfg.Name, "x", c.cfg.Shards, testTTL.Seconds(), leases)
		held := 0
		for _, cn := range cl.Nodes {
			held += len(cn.Shards)
			if cn.LastSeen.IsZero() {
				t.Errorf("node %s: never seen", cn.Name)
			}
		}
		if len(cl.Nodes) != len(c.nodes) || held != c.cfg.Shards {
			t.Errorf("cluster view: %d nodes holding %d shards, want %d holding %d", len(cl.Nodes), held, len(c.nodes), c.cfg.Shards)
		}
		return // one node's view is every node's: the bucket is shared
	}
}
