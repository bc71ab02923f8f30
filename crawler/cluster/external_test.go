package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/cluster/natstest"
)

// TestExternalCluster plays the lease and handoff scenarios on Debian's
// nats-server as users deploy it: three servers, each node connected to a
// different one. The buckets are replicated three times where the server is
// safe for it (see ErrUnsafeServer); on older servers NewManager must refuse
// that, and the scenario runs with one replica.
func TestExternalCluster(t *testing.T) {
	t.Parallel()
	urls := natstest.MustNATSCluster(t)
	replicas := 3
	if version := serverVersion(t, urls[0]); replicasSafe(version, 3) != nil {
		_, js := MustJetStream(t, urls[0])
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cfg := Config{NATS: urls[0], Name: "refused", Node: "a", Shards: 4, LeaseTTL: testTTL}
		if _, err := NewManager(ctx, js, cfg, ManagerOptions{Replicas: 3}); !errors.Is(err, ErrUnsafeServer) {
			t.Errorf("nats-server %s, 3 replicas: NewManager = %v, want ErrUnsafeServer", version, err)
		}
		t.Logf("nats-server %s: replicated leases refused; the scenario runs with 1 replica", version)
		replicas = 1
	}
	t.Run("leases", func(t *testing.T) { runLeaseScenario(t, urls, replicas) })
	t.Run("handoff", func(t *testing.T) { runHandoffScenario(t, urls[1], 3) })
}
