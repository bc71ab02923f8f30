package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkClusterScaling crawls the same web of slow pages with one node
// and with three (separate processes of the real binary on an embedded
// NATS server), each node limited to two workers so that one node is the
// bottleneck, and reports pages/s for each and the speedup. Rates are
// pages over the span from the first request to the last as the servers
// saw them, so start-up and the drain check are left out. Issue 10 asks
// for a speedup of at least 2.5.
func BenchmarkClusterScaling(b *testing.B) {
	const hosts, pages, think, delay, workers = 120, 6, 40 * time.Millisecond, 10 * time.Millisecond, 2
	rate := func(b *testing.B, nodes int) float64 {
		w, names := clusterWeb(hosts, pages, think)
		defer w.Close()
		procs, _ := startCluster(b, w, names, fmt.Sprintf("scale%d", nodes), nodes, nodeSpec{workers: workers, delay: delay, shards: 64, seedAll: true})
		for _, p := range procs {
			p.wait(b, 5*time.Minute)
			log := p.stderr.String()
			b.Logf("%d nodes: %s fetched %d pages; shards acquired %d, lost %d", nodes, p.name, strings.Count(log, `"msg":"fetch"`),
				strings.Count(log, `"msg":"shard acquired"`), strings.Count(log, `"msg":"shard lost"`))
		}
		var first, last time.Time
		n := 0
		for _, h := range w.Hosts() {
			for _, r := range h.Log() {
				if r.Path == "/robots.txt" {
					continue
				}
				n++
				if first.IsZero() || r.Start.Before(first) {
					first = r.Start
				}
				if r.End.After(last) {
					last = r.End
				}
			}
		}
		if n < hosts*pages {
			b.Fatalf("%d nodes: %d pages fetched, want %d", nodes, n, hosts*pages)
		}
		return float64(n) / last.Sub(first).Seconds()
	}
	var one, three float64
	for b.Loop() {
		one = rate(b, 1)
		three = rate(b, 3)
	}
	b.ReportMetric(one, "pages/s_1node")
	b.ReportMetric(three, "pages/s_3nodes")
	b.ReportMetric(three/one, "speedup")
}
