package cluster_test

import (
	"context"
	"log"
	"os/signal"
	"syscall"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/politecrawl/politecrawl/crawler/cluster"
)

// A node that also runs the crawl's NATS server, takes its share of the
// shards and serves a host only while it holds the host's shard.
func ExampleManager() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	cfg := cluster.DefaultConfig()
	cfg.Name, cfg.Embed = "example", "127.0.0.1:4222"
	if err := cfg.Validate(); err != nil {
		log.Fatal(err)
	}
	srv, err := cluster.StartEmbedded(ctx, cluster.Options{Listen: cfg.Embed, StoreDir: cluster.StoreDirFor("/var/lib/politecrawl/example.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	nc, err := nats.Connect(cfg.URLs())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		log.Fatal(err)
	}

	tokens := make(map[int]uint64) // shard -> fencing token; events come from Run's goroutine only
	m, err := cluster.NewManager(ctx, js, cfg, cluster.ManagerOptions{OnEvent: func(e cluster.Event) {
		switch e.Kind {
		case cluster.Acquired:
			tokens[e.Shard] = e.Token // start serving the shard's hosts
		case cluster.Lost:
			delete(tokens, e.Shard) // stop at once: cancel the shard's fetches
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	// Before each fetch the engine checks, with the token it was handed:
	//   shard := cluster.Shard("www.example.org:443", cfg.Shards)
	//   if !m.Holds(shard, token) { requeue; skip }
	if err := m.Run(ctx); err != nil { // returns after SIGTERM, shards handed over
		log.Fatal(err)
	}
}
