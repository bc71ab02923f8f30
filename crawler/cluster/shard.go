package cluster

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// Shard maps a host (the frontier's host key, "host:port") to one of shards
// partitions. The hash is FNV-1a 64 (hash/fnv) of the lower-cased host,
// reduced modulo shards: a pure function of its arguments, the same on every
// machine, architecture and Go version, so every node of a crawl agrees on a
// host's shard for the crawl's whole life (cluster.shards never changes once
// a crawl has started). It panics if shards < 1.
func Shard(host string, shards int) int {
	if shards < 1 {
		panic(fmt.Sprintf("cluster.Shard: shards = %d, want >= 1", shards))
	}
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(host)))
	return int(h.Sum64() % uint64(shards))
}

// shardKey is shard n's key in the leases bucket: "s" and four digits, so
// keys sort in shard order for any cluster.shards up to maxShards.
func shardKey(n int) string { return fmt.Sprintf("s%04d", n) }

// keyShard is the inverse of shardKey; ok is false for any other key.
func keyShard(key string, shards int) (n int, ok bool) {
	if len(key) != 5 || key[0] != 's' {
		return 0, false
	}
	for _, c := range key[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n < shards
}
