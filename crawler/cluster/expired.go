package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A node that dies hands nothing over: its leases expire after the TTL and
// the survivors take its shards. The server reports no expiry, so a
// Manager remembers who held each shard, and when it last saw that lease
// written, from the leases' change stream and its own reads of the bucket.
// A shard whose key is gone, not deleted (a handover deletes it) and not
// written for half a TTL (a live holder writes it every quarter) was held
// by a node whose leases expired. The Manager says so once per such node,
// with the shards it held, and once more when it has seen where each of
// them went.

// holding is a lease of another node as last seen.
type holding struct {
	by   stamp
	seen time.Time // on our clock
}

// expiredNode is a node whose leases expired: the shards it held and
// their new owners as they are seen.
type expiredNode struct {
	shards []int
	to     map[int]string
}

// holders is what a Manager knows of the leases of all nodes. Owned by
// Run's goroutine.
type holders struct {
	shard   map[int]holding
	expired map[string]*expiredNode // by node name, until its shards all moved
}

// noteLease takes one change of the leases bucket.
func (m *Manager) noteLease(e jetstream.KeyValueEntry) {
	s, ok := keyShard(e.Key(), m.cfg.Shards)
	if !ok {
		return
	}
	if e.Operation() != jetstream.KeyValuePut {
		delete(m.holders.shard, s) // handed over on purpose
		return
	}
	m.noteHeld(s, parseStamp(e.Value()))
}

// noteHeld records that st holds shard s. Another node's lease on it
// before, gone without a delete, expired; and s may be an expired node's
// shard moving.
func (m *Manager) noteHeld(s int, st stamp) {
	if m.holders.shard == nil {
		m.holders.shard = map[int]holding{}
	}
	prev, had := m.holders.shard[s]
	m.holders.shard[s] = holding{by: st, seen: m.now()}
	if had && prev.by != st {
		m.lapsed(s, prev)
	}
	for name, x := range m.holders.expired {
		if _, ok := x.to[s]; ok || !slices.Contains(x.shards, s) {
			continue
		}
		x.to[s] = st.Node
		if len(x.to) == len(x.shards) {
			m.log.Info("cluster: the shards of a node whose leases expired have moved", "expired_node", name, "moved", x.moves())
			delete(m.holders.expired, name)
		}
	}
}

// noteFree takes a read of the leases bucket in which shard s has no key.
func (m *Manager) noteFree(s int) {
	if h, ok := m.holders.shard[s]; ok {
		delete(m.holders.shard, s)
		m.lapsed(s, h)
	}
}

// lapsed takes a lease h on shard s found gone without a delete. Unless
// it was ours (expire said so) or written too recently to have expired (a
// handover's delete not seen yet), its node's leases expired: that is said
// once, with every shard the node held.
func (m *Manager) lapsed(s int, h holding) {
	if h.by == (stamp{Node: m.cfg.Node, Session: m.session}) || m.now().Sub(h.seen) < m.cfg.LeaseTTL/2 {
		return
	}
	if x := m.holders.expired[h.by.Node]; x != nil {
		if !slices.Contains(x.shards, s) {
			x.shards = append(x.shards, s)
			slices.Sort(x.shards)
		}
		return
	}
	x := &expiredNode{shards: []int{s}, to: map[int]string{}}
	for o, oh := range m.holders.shard {
		if oh.by == h.by && o != s {
			x.shards = append(x.shards, o)
		}
	}
	slices.Sort(x.shards)
	if m.holders.expired == nil {
		m.holders.expired = map[string]*expiredNode{}
	}
	m.holders.expired[h.by.Node] = x
	m.log.Warn("cluster: a node's leases expired (it stopped without handing its shards over); its shards go to the others",
		"expired_node", h.by.Node, "shards", fmt.Sprint(x.shards))
}

// moves says where each shard went: "3→a 5→b".
func (x *expiredNode) moves() string {
	parts := make([]string, 0, len(x.shards))
	for _, s := range x.shards {
		parts = append(parts, fmt.Sprintf("%d→%s", s, x.to[s]))
	}
	return strings.Join(parts, " ")
}
