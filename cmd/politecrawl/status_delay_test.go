package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/storage"
)

// TestStatusShowsTheDelayInForce: status of a stopped crawl shows each
// host's delay as the crawl will space it when it starts again, its floor
// raised by what the adaptive delay learnt of its server (400 ms to first
// byte × politeness.latency_factor 10, over a 1 s floor: 4 s), not the
// floor alone; with latency_factor 0, the floor.
func TestStatusShowsTheDelayInForce(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s.db")
	db, err := storage.Open(state, storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *storage.Tx) error {
		return tx.PutHost("slow.test", storage.HostRecord{LastRequest: time.Now().Add(-time.Minute), Interval: 1, TTFBMs: 400})
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		factor string
		want   float64
	}{{"", 4}, {"0", 1}} {
		if c.factor != "" {
			t.Setenv("POLITECRAWL_POLITENESS_LATENCY_FACTOR", c.factor)
		}
		out, stderr, code := runCLI(t, "status", "--state", state, "--json")
		if code != 0 {
			t.Fatalf("status exited %d: %s", code, stderr)
		}
		var st status.Status
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatal(err)
		}
		if len(st.PerHost) != 1 || st.PerHost[0].IntervalS != c.want {
			t.Errorf("latency_factor %q: per host %+v, want slow.test's interval_s %v", c.factor, st.PerHost, c.want)
		}
	}
}
