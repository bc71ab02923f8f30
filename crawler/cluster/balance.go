package cluster

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// fairShare is how many of shards each of members nodes aims to hold:
// ceil(shards/members). The targets add up to at least shards, so when every
// node holds its share no shard is left free.
func fairShare(shards, members int) int {
	members = max(members, 1)
	return (shards + members - 1) / members
}

// balance moves this node toward its fair share: it releases surplus shards
// (to a node that joined) or takes free ones (released, or orphaned by a
// node whose leases expired).
func (m *Manager) balance(ctx context.Context) {
	m.lastBalance = m.now()
	members, err := m.countMembers(ctx)
	if err != nil {
		m.warn("count members", "err", err)
		return
	}
	target := fairShare(m.cfg.Shards, members)
	if owned := m.sortedOwned(); len(owned) > target {
		// One at a time, balancing again at once: a handover waits for
		// the shard's work in flight (BeforeRelease), and the other
		// leases are renewed in between.
		m.release(ctx, owned[len(owned)-1], "surplus")
		if len(owned)-1 > target {
			m.lastBalance = time.Time{}
		}
		return
	}
	if len(m.owned) < target && !m.now().Before(m.settled) && !m.drained.Load() {
		m.acquireFree(ctx, target)
	}
}

// countMembers counts the live member keys, this node included.
func (m *Manager) countMembers(ctx context.Context) (int, error) {
	var entries map[string]jetstream.KeyValueEntry
	err := m.withTimeout(ctx, func(ctx context.Context) (err error) {
		entries, err = snapshot(ctx, m.members)
		return err
	})
	if err != nil {
		return 0, err
	}
	clear(m.knownMembers)
	for k := range entries {
		m.knownMembers[k] = true
	}
	n := len(entries)
	if !m.knownMembers[m.cfg.Node] {
		n++
	}
	return n, nil
}

// acquireFree creates leases on free shards, in random order so that nodes
// racing for the same freed shards spread out, until this node holds target.
// Keys still stamped by this node's session that it no longer owns (a create
// that timed out but landed, a lease that expired here while the server was
// out of reach) are deleted, so that they need not wait for the TTL.
func (m *Manager) acquireFree(ctx context.Context, target int) {
	var entries map[string]jetstream.KeyValueEntry
	err := m.withTimeout(ctx, func(ctx context.Context) (err error) {
		entries, err = snapshot(ctx, m.leases)
		return err
	})
	if err != nil {
		m.warn("read leases", "err", err)
		return
	}
	var free []int
	for s := range m.cfg.Shards {
		e, taken := entries[shardKey(s)]
		_, mine := m.owned[s]
		switch {
		case !taken:
			m.noteFree(s)
			free = append(free, s)
		case !mine && bytes.Equal(e.Value(), m.value):
			m.deleteOurs(ctx, e.Key(), e.Revision())
		default:
			if _, known := m.holders.shard[s]; !known {
				m.noteHeld(s, parseStamp(e.Value())) // before its first renewal seen here
			}
		}
	}
	rand.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	for _, s := range free {
		if len(m.owned) >= target || ctx.Err() != nil {
			return
		}
		m.acquire(ctx, s)
	}
}

// acquire creates shard's lease; it fails harmlessly if another node was
// quicker.
func (m *Manager) acquire(ctx context.Context, shard int) {
	key := shardKey(shard)
	sent := m.now()
	var rev uint64
	err := m.withTimeout(ctx, func(ctx context.Context) (err error) {
		rev, err = m.leases.Create(ctx, key, m.value)
		return err
	})
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyExists) {
			m.warn("create lease", "shard", shard, "err", err)
		}
		return
	}
	l := m.tm.written(lease{shard: shard, key: key, token: rev}, rev, sent)
	m.own(l)
	m.log.Info("shard acquired", "shard", shard, "token", rev)
	m.onEvent(Event{Kind: Acquired, Shard: shard, Token: rev})
}

// release hands a shard over: Lost first, so that this node has stopped
// before anyone else can start, then the lease is deleted. If the delete
// fails, the lease expires after the TTL instead.
func (m *Manager) release(ctx context.Context, l lease, reason string) {
	m.mu.Lock()
	m.releasing[l.shard] = l // for MayWrite, until the key goes
	m.mu.Unlock()
	m.lose(l, reason)
	if m.before != nil {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.tm.validUntil(l).Sub(m.now()))
		m.before(bctx, l.shard)
		cancel()
	}
	m.mu.Lock()
	delete(m.releasing, l.shard)
	m.mu.Unlock()
	m.deleteOurs(ctx, l.key, l.rev)
}

// deleteOurs deletes key at revision rev, or, if a write of ours that timed
// out has landed since, at the revision of that write: never a key another
// node has written.
func (m *Manager) deleteOurs(ctx context.Context, key string, rev uint64) {
	err := m.withTimeout(ctx, func(ctx context.Context) error {
		return m.leases.Delete(ctx, key, jetstream.LastRevision(rev))
	})
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		var e jetstream.KeyValueEntry
		err = m.withTimeout(ctx, func(ctx context.Context) (err error) {
			if e, err = m.leases.Get(ctx, key); err != nil || !bytes.Equal(e.Value(), m.value) {
				return err // gone, or someone else's
			}
			return m.leases.Delete(ctx, key, jetstream.LastRevision(e.Revision()))
		})
	}
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		m.warn("delete lease", "key", key, "err", err)
	}
}
