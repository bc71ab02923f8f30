// Package cluster shares one crawl among several politecrawl processes
// (nodes) over NATS JetStream. It owns membership, shard ownership and the
// movement of URLs between nodes; it makes no politeness decisions: it
// decides which node serves which hosts, and the frontier of that node
// still times them. Node plugs a crawl engine (crawler.Crawler, through
// crawler.Node) into it; Client reads and seeds a crawl from outside.
//
// # The crawl's state in JetStream
//
//	politecrawl_<crawl>_leases   KV: shard -> owner (TTL lease_ttl)
//	politecrawl_<crawl>_members  KV: node heartbeats (TTL lease_ttl)
//	politecrawl_<crawl>_handoff  stream: one message per undecided URL
//	politecrawl_<crawl>_records  KV: URL hash -> decided record (export JSON)
//	politecrawl_<crawl>_hosts    KV: shard.host hash -> host timing
//
// A Node publishes every URL its engine discovers to the shard of its
// host, and admits the messages of the shards it owns, holding each one
// unacknowledged until the URL is decided: its record written, the URLs
// it found published. The stream is thus the set of undecided URLs: a
// dead node's shards go to the survivors with all their messages (the new
// owner recreates the shard's consumer, so they come at once), and the
// crawl is drained when the stream is empty. A node hands a shard over on
// purpose (surplus, SIGTERM) only after its requests in flight to the
// shard's hosts are recorded and handed over, and the hosts' timing
// written; a new owner waits a full delay from the take-over before its
// first request to each host, the one in force on the previous owner,
// adaptive terms included, and the host's delay continues from what that
// owner learnt of the server (see hostTiming.earliest).
//
// # Basics
//
// Hosts map to a fixed number of shards (cluster.shards) by Shard, a stable
// hash. A node serves a shard's hosts only while it holds the shard's lease:
// a key in the crawl's JetStream key-value bucket politecrawl_<crawl>_leases
// whose value names the node. The bucket's TTL is cluster.lease_ttl: a key
// not written for that long disappears.
//
//   - Take a free shard: Create (fails if the key exists). The revision it
//     returns is the fencing token of this ownership; tokens of successive
//     owners of a shard strictly increase.
//   - Renew: Update at the last revision we wrote (compare-and-set), every
//     quarter of the TTL. A refused update means someone else holds the key.
//   - Hand over (SIGTERM, or a surplus shard): report Lost, then Delete at
//     the expected revision, so that another node takes it at once.
//
// A Manager does all this in Run and reports each change to the engine as an
// Event: Acquired(shard, token) and Lost(shard). Holds(shard, token) is the
// check to make before each fetch.
//
// Nodes announce themselves with a heartbeat key in politecrawl_<crawl>_members
// (same TTL). With n members each node aims at ceil(shards/n) shards: when a
// node joins, the others release their surplus and it takes them; when a
// node dies, its heartbeat and leases expire after the TTL and the survivors,
// whose share has grown, take its shards.
//
// Handoff moves URLs to the shard that owns their host: a work-queue stream
// per crawl, a durable consumer per shard that outlives its owners, and an
// acknowledgement only after the URL is decided (delivery is at least
// once; admission is idempotent).
//
// StartEmbedded runs a NATS server with JetStream inside the process
// (cluster.embed), for one-machine clusters and tests.
//
// # The fencing margin, and what it assumes of clocks
//
// A renewal sent at instant s is stored by the server after s, and the
// server removes the key no sooner than TTL after storing it (its expiry
// sweep only runs late, by up to a few hundred milliseconds). So no other
// node can take the shard before s+TTL. A node stops using a shard when its
// own clock shows TTL-margin elapsed since s, with margin a quarter of the
// TTL (2.5 s of the default 10 s), and reports Lost then, even if it is cut
// off from the server. Renewals are due every quarter TTL and retried every
// sixteenth, so a server out of reach for less than 0.4 TTL costs no shard.
//
// This assumes:
//   - the node's clock (ManagerOptions.Now, time.Now by default) is monotonic
//     and runs at the server's rate within a few percent: only durations on
//     it are used, never its wall time, so a wall-clock step on the node is
//     harmless;
//   - the server's wall clock is not stepped forward by more than the margin
//     during a lease (it stamps and expires keys by wall time), and the
//     servers of a replicated bucket agree within the margin (NTP);
//   - the engine acts on Lost, or checks Holds, within the margin less these
//     drifts: Lost is reported from Run's goroutine, and no request to the
//     server is allowed to run past the end of a lease's validity.
//
// # Caveats
//
//   - Every node of a crawl must use the same cluster.shards and
//     cluster.lease_ttl: the buckets record them and NewManager refuses
//     others (ErrMismatch).
//   - Node names must be unique within a crawl; two nodes with one name count
//     as one member (their leases stay safe, the fair share does not).
//   - A lease TTL under a second is refused: the server sweeps expired keys
//     every 250 ms at best.
//   - Buckets use file storage, so a restarted server remembers its leases.
//     On a NATS cluster pass ManagerOptions.Replicas 3, which needs
//     nats-server 2.11.0 or later: older servers (Debian bookworm ships
//     2.9.10) can let two concurrent creates of one key both succeed on a
//     replicated stream, and NewManager refuses them (ErrUnsafeServer). With
//     one replica they are safe, but the leases live on one server.
package cluster
