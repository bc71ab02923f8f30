package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/politecrawl/politecrawl/crawler"
)

// TestWhyInAClusterWithoutNATS: with the crawl's records out of reach, a
// node's why says whose state it read, the URL's shard, and that another
// node may have decided the URL, instead of "not seen by the crawl".
func TestWhyInAClusterWithoutNATS(t *testing.T) {
	cfg := &Config{State: "node1.db"}
	cfg.Cluster.Node, cfg.Cluster.Name, cfg.Cluster.Shards, cfg.Cluster.NATS = "node1", "ex", 16, "nats://127.0.0.1:1"
	for _, c := range []struct{ local, want, not string }{
		{notSeen, "not seen by this node (node1's state file node1.db); the crawl's records could not be read, so another node may have decided it: nats: no servers", "not seen by the crawl"},
		{"fetched (HTTP 200) at 2026-11-26T02:12:55Z", "fetched (HTTP 200) at 2026-11-26T02:12:55Z (node1's state file node1.db; the crawl's records could not be read", "may have decided"},
	} {
		w := crawler.Why{URL: "http://a.example/x", Normal: "http://a.example/x", Verdict: "v",
			Steps: []crawler.WhyStep{{Step: "normalise", Result: "http://a.example/x"}, {Step: "record", Result: c.local}}}
		completeWhy(context.Background(), cfg, &w, nil, errors.New("nats: no servers available for connection"))
		if len(w.Steps) != 3 || w.Steps[1].Step != "cluster" || !strings.Contains(w.Steps[1].Result, "a.example is in shard ") ||
			!strings.Contains(w.Steps[1].Result, "of 16, whose holder is unknown; trap guards and robots.txt above are from node1's state file node1.db") {
			t.Errorf("steps %+v: want a cluster step before the record", w.Steps)
		}
		if r := w.Steps[len(w.Steps)-1]; r.Step != "record" || !strings.Contains(r.Result, c.want) || strings.Contains(r.Result, c.not) {
			t.Errorf("record step %q: want %q, without %q", r.Result, c.want, c.not)
		}
	}
}
