package cluster

import (
	"context"
	"fmt"
	"sort"

	"github.com/politecrawl/politecrawl/crawler/status"
)

// Leases reads the leases bucket as any node sees it: each leased shard,
// its node, and when the lease was last written (taken or renewed). Safe
// for concurrent use.
func (m *Manager) Leases(ctx context.Context) ([]status.Lease, error) {
	entries, err := snapshot(ctx, m.leases)
	if err != nil {
		return nil, fmt.Errorf("read leases: %w", err)
	}
	out := make([]status.Lease, 0, len(entries))
	for k, e := range entries {
		if s, ok := keyShard(k, m.cfg.Shards); ok {
			out = append(out, status.Lease{Shard: s, Node: parseStamp(e.Value()).Node, Renewed: e.Created().UTC()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Shard < out[j].Shard })
	return out, nil
}

// ClusterView is what status and the console show of the cluster from
// this node: the nodes holding leases, their shards, when each was last
// seen renewing one, and the leases.
func (n *Node) ClusterView(ctx context.Context) (*status.Cluster, error) {
	leases, err := n.mgr.Leases(ctx)
	if err != nil {
		return nil, err
	}
	return status.NewCluster(n.cfg.Name, n.cfg.Node, n.cfg.Shards, n.cfg.LeaseTTL.Seconds(), leases), nil
}
