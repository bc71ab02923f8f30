package cluster

import "errors"

// Errors callers branch on.
var (
	// ErrMismatch: the crawl's buckets exist with a different shard count or
	// lease TTL than this node's configuration; every node of a crawl must use
	// the same cluster.shards and cluster.lease_ttl.
	ErrMismatch = errors.New("cluster configuration differs from the crawl's")
	// ErrUnsafeServer: the crawl's buckets are replicated on a nats-server
	// release whose compare-and-set is not serializable on replicated
	// streams, so two nodes could hold one lease. Upgrade the server, or
	// use one replica.
	ErrUnsafeServer = errors.New("server unsafe for replicated leases")
	// ErrRunning: Run was called on a Manager that already runs or ran.
	ErrRunning = errors.New("manager already started")
)
