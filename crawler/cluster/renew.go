package cluster

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

// expire reports Lost for every lease whose validity ended: it was not
// renewed in time, and from TTL-margin after its last write another node
// may soon be able to take it.
func (m *Manager) expire() {
	now := m.now()
	for _, l := range m.sortedOwned() {
		if !now.Before(m.tm.validUntil(l)) {
			m.lose(l, "expired")
		}
	}
}

// heartbeat refreshes the node's member key when due; the members bucket's
// TTL removes the key of a node that stops.
func (m *Manager) heartbeat(ctx context.Context) {
	if m.now().Before(m.nextHeartbeat) {
		return
	}
	sent := m.now()
	err := m.withTimeout(ctx, func(ctx context.Context) error {
		_, err := m.members.Put(ctx, m.cfg.Node, m.value)
		return err
	})
	if err != nil {
		m.warn("heartbeat", "err", err)
		m.nextHeartbeat = m.now().Add(m.tm.retry)
		return
	}
	m.nextHeartbeat = sent.Add(m.tm.renew)
}

// renewDue renews every lease whose renewal is due.
func (m *Manager) renewDue(ctx context.Context) {
	for _, l := range m.sortedOwned() {
		if !m.now().Before(l.next) && ctx.Err() == nil {
			m.renew(ctx, l)
		}
	}
}

// renew writes the lease again at its expected revision (compare-and-set).
// The time taken before sending is the new start of validity. A timeout
// keeps the lease until its validity ends; a changed key is reconciled.
func (m *Manager) renew(ctx context.Context, l lease) {
	if !m.now().Before(m.tm.validUntil(l)) {
		return // expire reports it
	}
	sent := m.now()
	var rev uint64
	err := m.withTimeout(ctx, func(ctx context.Context) (err error) {
		rev, err = m.leases.Update(ctx, l.key, m.value, l.rev)
		return err
	})
	switch {
	case err == nil:
		m.renewed.Add(1)
		m.own(m.tm.written(l, rev, sent))
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
		m.reconcile(ctx, l)
	default:
		m.warn("renew lease", "shard", l.shard, "err", err)
		l.next = m.now().Add(m.tm.retry)
		m.own(l)
	}
}

// reconcile handles a renewal refused for a wrong revision. If the key still
// carries our stamp, an earlier write we took for failed (a timeout) did land:
// its revision is adopted, but not its time, which we do not know. Otherwise
// someone else holds the key, or it is gone: the lease is lost.
func (m *Manager) reconcile(ctx context.Context, l lease) {
	var e jetstream.KeyValueEntry
	err := m.withTimeout(ctx, func(ctx context.Context) (err error) {
		e, err = m.leases.Get(ctx, l.key)
		return err
	})
	switch {
	case err == nil && bytes.Equal(e.Value(), m.value) && e.Revision() > l.rev:
		l.rev, l.next = e.Revision(), m.now() // renew at once at the adopted revision
		m.own(l)
	case err == nil, errors.Is(err, jetstream.ErrKeyNotFound):
		m.lose(l, "taken")
	default:
		m.warn("read lease", "shard", l.shard, "err", err)
		l.next = m.now().Add(m.tm.retry)
		m.own(l)
	}
}

// sortedOwned returns the leases in shard order, a copy safe to iterate
// while leases are lost or released.
func (m *Manager) sortedOwned() []lease {
	out := make([]lease, 0, len(m.owned))
	for _, l := range m.owned {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b lease) int { return a.shard - b.shard })
	return out
}
