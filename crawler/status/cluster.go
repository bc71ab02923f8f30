package status

import (
	"sort"
	"time"
)

// Cluster is a clustered crawl as one node sees it: every node holding a
// lease, the shards it holds and when it last renewed one. A node that
// died is listed until its leases expire (LeaseTTLS after LastSeen).
type Cluster struct {
	Name      string        `json:"name"`
	Node      string        `json:"node"` // the node answering
	Shards    int           `json:"shards"`
	Leased    int           `json:"leased"`
	LeaseTTLS float64       `json:"lease_ttl_s"`
	Nodes     []ClusterNode `json:"nodes"` // by name
	Leases    []Lease       `json:"leases"`
}

// ClusterNode is one node of a Cluster.
type ClusterNode struct {
	Name     string    `json:"name"`
	Shards   []int     `json:"shards"`
	LastSeen time.Time `json:"last_seen"` // its latest lease write
}

// Lease is one shard's lease.
type Lease struct {
	Shard   int       `json:"shard"`
	Node    string    `json:"node"`
	Renewed time.Time `json:"renewed"`
}

// NewCluster groups leases by node.
func NewCluster(name, self string, shards int, ttlS float64, leases []Lease) *Cluster {
	c := &Cluster{Name: name, Node: self, Shards: shards, Leased: len(leases), LeaseTTLS: ttlS, Leases: leases, Nodes: []ClusterNode{}}
	byNode := map[string]*ClusterNode{}
	for _, l := range leases {
		n := byNode[l.Node]
		if n == nil {
			n = &ClusterNode{Name: l.Node}
			byNode[l.Node] = n
		}
		n.Shards = append(n.Shards, l.Shard)
		if l.Renewed.After(n.LastSeen) {
			n.LastSeen = l.Renewed
		}
	}
	for _, n := range byNode {
		sort.Ints(n.Shards)
		c.Nodes = append(c.Nodes, *n)
	}
	sort.Slice(c.Nodes, func(i, j int) bool { return c.Nodes[i].Name < c.Nodes[j].Name })
	return c
}
