package cluster

import "github.com/prometheus/client_golang/prometheus"

// Register adds the node's measurements to reg (the daemon's /metrics):
// shards owned, URLs sent to and received from the crawl's shards,
// duplicates dropped, URLs held undecided, and lease renewals.
func (n *Node) Register(reg prometheus.Registerer) {
	if reg == nil {
		return
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	counter := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f)
	}
	reg.MustRegister(
		gauge("politecrawl_cluster_shards_owned", "Shards this node holds the lease of.",
			func() float64 { return float64(len(n.mgr.Owned())) }),
		gauge("politecrawl_cluster_urls_held", "URLs this node has admitted and not decided yet (their messages unacknowledged).",
			func() float64 { return float64(n.heldCount()) }),
		counter("politecrawl_cluster_urls_sent_total", "URLs this node handed to the crawl's shards (links, seeds, sitemap entries).",
			func() float64 { return float64(n.sent.Load()) }),
		counter("politecrawl_cluster_urls_received_total", "Handed-over URLs this node received for its shards.",
			func() float64 { return float64(n.received.Load()) }),
		counter("politecrawl_cluster_duplicates_total", "Received URLs dropped because this node already held them.",
			func() float64 { return float64(n.dups.Load()) }),
		counter("politecrawl_cluster_lease_renewals_total", "Shard lease renewals this node wrote.",
			func() float64 { return float64(n.mgr.Renewals()) }),
	)
}
