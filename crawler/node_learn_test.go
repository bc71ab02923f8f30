package crawler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// TestNodeLearnsTheDelay: what a shard's previous owner learnt of a
// host's server (400 ms to first byte, with latency_factor 10) spaces the
// host here from then on, as it did there, and says why; status shows
// the host's last answer there (a 503) until it answers here.
func TestNodeLearnsTheDelay(t *testing.T) {
	const host = "h.example"
	cfg := testConfig()
	cfg.DefaultDelay, cfg.Node = time.Second, newFakeNode()
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	// Known here from an earlier ownership, spaced by its floor.
	if err := db.Update(func(tx *storage.Tx) error {
		return tx.PutHost(host, storage.HostRecord{LastRequest: time.Now().Add(-time.Minute), Interval: 1})
	}); err != nil {
		t.Fatal(err)
	}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := runInBackground(t, c, 10*time.Second)
	defer stop()
	if err := c.node.Learn(ctx, map[string]storage.HostRecord{host: {Interval: 1, TTFBMs: 400, LastStatus: 503}}); err != nil {
		t.Fatal(err)
	}
	var v frontier.HostView
	if err := c.do(ctx, func() { v = c.front.View(host, c.cfg.Now()) }); err != nil {
		t.Fatal(err)
	}
	if v.Interval != 4*time.Second || v.DelayFrom != frontier.WhyLatency {
		t.Errorf("delay after learning %v (%s), want 4s (%s)", v.Interval, v.DelayFrom, frontier.WhyLatency)
	}
	if v.LastStatus != 503 {
		t.Errorf("last status after learning %d, want 503 (the previous owner's)", v.LastStatus)
	}
}
