package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/politecrawl/politecrawl/storage"
)

// TestFinishWritesOnlyHeldRecords: a node hands over its decided URLs
// (finish): the record of a URL it still holds, under a lease it holds or
// is handing over on purpose, is written; that of a URL whose lease ran
// out (a node cut off, its connection back before its Lost), or that it
// holds under no lease, is not: the new owner decides those (the record
// was written anyway; only the ack checked the hold).
func TestFinishWritesOnlyHeldRecords(t *testing.T) {
	srv := MustEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const shards, token = 4, 7
	cfg := Config{NATS: srv.ClientURL(), Name: "finish", Node: "n1", Shards: shards, LeaseTTL: 2 * time.Second}
	n, err := DialNode(ctx, cfg, NodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.nc.Close()
	now := time.Now()
	cases := []struct {
		name  string
		lease func(shard int)
		write bool
	}{
		{"lease held", func(s int) { n.mgr.own(lease{shard: s, token: token, sent: now}) }, true},
		{"lease being handed over", func(s int) { n.mgr.releasing[s] = lease{shard: s, token: token, sent: now} }, true},
		{"lease ran out", func(s int) { n.mgr.own(lease{shard: s, token: token, sent: now.Add(-cfg.LeaseTTL)}) }, false},
		{"no lease", func(int) {}, false},
	}
	// One host per shard, a case each.
	urls := make([]string, len(cases))
	for i, seen := 0, map[int]bool{}; len(seen) < shards; i++ {
		h := fmt.Sprintf("h%d.example", i)
		if s := Shard(h, shards); !seen[s] {
			k := len(seen)
			seen[s], urls[k] = true, "http://"+h+"/"
			n.held[urls[k]] = heldMsg{shard: s, token: token}
			cases[k].lease(s)
		}
	}
	var jobs []job
	for _, u := range urls {
		jobs = append(jobs, job{decided: u, record: &storage.URLRecord{URL: u, State: storage.Fetched, Status: 200, Links: []string{}}})
	}
	if err := n.finish(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		_, err := n.records.Get(ctx, urlKey(urls[i]))
		if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Fatal(err)
		}
		if written := err == nil; written != c.write {
			t.Errorf("%s: record written %v, want %v", c.name, written, c.write)
		}
	}
}
