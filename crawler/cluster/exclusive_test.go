package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/crawler/cluster/natstest"
)

// MustEmbeddedCluster runs three embedded servers (this module's
// nats-server) as one JetStream cluster on loopback and returns their
// client URLs.
func MustEmbeddedCluster(t testing.TB) []string {
	t.Helper()
	ports := natstest.FreePorts(t, 3)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	dir := t.TempDir()
	var urls []string
	for i := range 3 {
		srv, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("e%d", i), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("e%d", i)), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "politecrawl-embedded", Host: "127.0.0.1", Port: ports[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		})
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatalf("embedded cluster server %d not ready", i)
		}
		urls = append(urls, srv.ClientURL())
	}
	natstest.WaitJetStream(t, urls, "")
	return urls
}

// doubleCreates races three clients, one per URL, to Create the same key,
// rounds times (after the first 20, over a delete marker, as when a lease is
// handed over), and counts the rounds in which more than one succeeded.
func doubleCreates(t *testing.T, urls []string, replicas, rounds int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var kvs []jetstream.KeyValue
	for i := range 3 {
		_, js := MustJetStream(t, urls[i%len(urls)])
		kv, err := openBucket(ctx, js, fmt.Sprintf("exclusive_r%d", replicas), "test", time.Minute, replicas)
		if err != nil {
			t.Fatal(err)
		}
		kvs = append(kvs, kv)
	}
	doubles := 0
	for r := range rounds {
		key := fmt.Sprintf("k%d", r%20)
		if e, err := kvs[0].Get(ctx, key); err == nil {
			if err := kvs[0].Delete(ctx, key, jetstream.LastRevision(e.Revision())); err != nil {
				t.Fatal(err)
			}
		}
		var wins atomic.Int32
		var wg sync.WaitGroup
		for _, kv := range kvs {
			wg.Go(func() {
				if _, err := kv.Create(ctx, key, []byte("x")); err == nil {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() > 1 {
			doubles++
		}
	}
	return doubles
}

// TestCreateIsExclusive qualifies servers for leases: concurrent creates of
// one key must let exactly one through. It holds on one server, and on a
// replicated bucket of this module's server; on Debian's nats-server (2.9.10
// in bookworm) it fails for replicated buckets, which is why NewManager
// refuses them there (ErrUnsafeServer).
func TestCreateIsExclusive(t *testing.T) {
	t.Parallel()
	const rounds = 100
	t.Run("embedded R1", func(t *testing.T) {
		if n := doubleCreates(t, []string{MustEmbedded(t).ClientURL()}, 1, rounds); n != 0 {
			t.Errorf("%d of %d rounds let two creates through", n, rounds)
		}
	})
	t.Run("embedded cluster R3", func(t *testing.T) {
		if n := doubleCreates(t, MustEmbeddedCluster(t), 3, rounds); n != 0 {
			t.Errorf("%d of %d rounds let two creates through", n, rounds)
		}
	})
	t.Run("nats-server cluster", func(t *testing.T) {
		urls := natstest.MustNATSCluster(t)
		if n := doubleCreates(t, urls, 1, rounds); n != 0 {
			t.Errorf("R1: %d of %d rounds let two creates through", n, rounds)
		}
		version := serverVersion(t, urls[0])
		n := doubleCreates(t, urls, 3, rounds)
		t.Logf("nats-server %s, R3: %d of %d rounds let two creates through", version, n, rounds)
		if replicasSafe(version, 3) == nil && n != 0 {
			t.Errorf("nats-server %s is trusted with replicated leases, yet let two creates through", version)
		}
	})
}

func serverVersion(t testing.TB, url string) string {
	nc, _ := MustJetStream(t, url)
	return nc.ConnectedServerVersion()
}
