package cluster

import "time"

// lease is one shard this node owns. It is owned by the Manager's loop; the
// copy in Manager.held (for Holds) is replaced, never mutated.
type lease struct {
	shard int
	key   string
	token uint64    // revision of the Create: the fencing token
	rev   uint64    // revision of the last acknowledged write, for the next Update
	sent  time.Time // when the last acknowledged write was sent, on our clock
	next  time.Time // when to try the next renewal
}
