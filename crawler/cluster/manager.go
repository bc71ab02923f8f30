package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ManagerOptions are a Manager's dependencies; every zero value has a use.
type ManagerOptions struct {
	// Now is the clock leases are timed by (default time.Now). It must be
	// monotonic, as time.Now is: only differences between its readings count.
	Now func() time.Time
	// Logger receives renewal failures and handovers (default: discard).
	Logger *slog.Logger
	// OnEvent is called from Run's goroutine for each Acquired and Lost, in
	// order. It must return quickly (cancel a context, close a channel): the
	// leases are not renewed while it runs.
	OnEvent func(Event)
	// Settle is how long after Run starts this node announces itself but
	// takes no free shard, so that nodes started together count each other
	// before they share out the shards rather than pass them around after
	// (default 0).
	Settle time.Duration
	// BeforeRelease, if set, is called from Run's goroutine when this node
	// hands a shard over on purpose (surplus, or Run stopping), after Lost
	// and before the lease is deleted: the moment to write down the state
	// the next owner needs. ctx ends with the lease's validity.
	BeforeRelease func(ctx context.Context, shard int)
	// Replicas is the replica count of the buckets if this node creates them
	// (default 1; 3 on a three-server NATS cluster, which needs nats-server
	// 2.11.0 or later: see ErrUnsafeServer).
	Replicas int
}

// Manager owns this node's membership of a crawl and its shard leases: it
// announces the node, takes a fair share of the shards, renews their leases,
// hands surplus shards to nodes that join, picks up the shards of nodes that
// die, and releases everything when Run's context is cancelled.
//
// Run must be called once. Holds, Owned and Owners are safe for concurrent
// use, also while Run runs.
type Manager struct {
	cfg     Config
	tm      timing
	now     func() time.Time
	log     *slog.Logger
	onEvent func(Event)
	before  func(context.Context, int)
	settle  time.Duration
	settled time.Time // no free shard is taken before this (Run's goroutine)
	value   []byte    // our stamp, written into every key we hold
	session string

	leases, members kvStore
	conn            *nats.Conn // nil in tests with fake stores

	started atomic.Bool
	crash   atomic.Bool // tests: exit without releasing, as a killed process would
	renewed atomic.Int64
	// drained: the whole crawl is done; shards others release as they
	// leave are not taken any more (there is no work in them, and the
	// log said "shard acquired" after "crawl drained").
	drained atomic.Bool

	// Owned by Run's goroutine.
	owned         map[int]lease
	lastBalance   time.Time
	nextHeartbeat time.Time
	knownMembers  map[string]bool
	holders       holders // who holds what, to tell an expired node (expired.go)

	mu   sync.Mutex
	held map[int]lease // copy of owned for Holds and Owned
	// releasing: leases being handed over on purpose (Lost reported, the
	// key not deleted yet), still ours to finish the shard's work under
	// (MayWrite).
	releasing map[int]lease
}

// NewManager validates cfg, creates or opens the crawl's leases and members
// buckets on js and returns a Manager ready to Run. It refuses buckets made
// with another shard count or lease TTL (ErrMismatch), and replicated
// buckets on a server too old to keep leases exclusive (ErrUnsafeServer).
func NewManager(ctx context.Context, js jetstream.JetStream, cfg Config, opts ManagerOptions) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, fmt.Errorf("cluster: neither cluster.nats nor cluster.embed is set")
	}
	m := &Manager{cfg: cfg, tm: newTiming(cfg.LeaseTTL), now: opts.Now, log: opts.Logger, onEvent: opts.OnEvent, before: opts.BeforeRelease, settle: opts.Settle,
		owned: make(map[int]lease), held: make(map[int]lease), releasing: make(map[int]lease), knownMembers: make(map[string]bool), conn: js.Conn()}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m.log = m.log.With("node", cfg.Node)
	if m.onEvent == nil {
		m.onEvent = func(Event) {}
	}
	replicas := max(opts.Replicas, 1)
	version := js.Conn().ConnectedServerVersion()
	if err := replicasSafe(version, replicas); err != nil {
		return nil, err
	}
	m.session = newSession()
	m.value, _ = json.Marshal(stamp{Node: cfg.Node, Session: m.session})
	desc := bucketDescription(cfg.Shards)
	leases, err := openBucket(ctx, js, LeasesBucket(cfg.Name), desc, cfg.LeaseTTL, replicas)
	if err != nil {
		return nil, err
	}
	members, err := openBucket(ctx, js, MembersBucket(cfg.Name), desc, cfg.LeaseTTL, replicas)
	if err != nil {
		return nil, err
	}
	// The buckets may exist already, made by another node with more replicas.
	st, err := leases.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("bucket %s status: %w", LeasesBucket(cfg.Name), err)
	}
	if err := replicasSafe(version, st.Config().Replicas); err != nil {
		return nil, err
	}
	m.leases, m.members = leases, members
	return m, nil
}

func newSession() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// Run announces the node and keeps its leases until ctx is cancelled, then
// hands over: it removes the node's member key, and for each shard reports
// Lost and deletes the lease at its expected revision, so that other nodes
// take the shards at once instead of waiting for the TTL. It returns nil
// after a cancelled ctx, or an error if it could not start watching the
// buckets.
func (m *Manager) Run(ctx context.Context) error {
	if !m.started.CompareAndSwap(false, true) {
		return ErrRunning
	}
	leaseW, err := m.leases.WatchAll(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return fmt.Errorf("watch leases: %w", err)
	}
	defer leaseW.Stop()
	memberW, err := m.members.WatchAll(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return fmt.Errorf("watch members: %w", err)
	}
	defer memberW.Stop()
	defer m.shutdown(ctx)

	m.settled = m.now().Add(m.settle)
	w := &wakeups{leases: leaseW.Updates(), members: memberW.Updates(), known: m.knownMembers, onLease: m.noteLease}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case e, ok := <-w.leases:
			w.lease(e, ok)
		case e, ok := <-w.members:
			w.member(e, ok)
		}
		w.drain()
		next := m.step(ctx, w.nudged)
		w.nudged = false
		timer.Reset(max(next.Sub(m.now()), 0))
	}
}

// step does whatever is due and returns when the next thing will be.
func (m *Manager) step(ctx context.Context, nudged bool) time.Time {
	m.expire()
	m.heartbeat(ctx)
	m.renewDue(ctx)
	if nudged || !m.now().Before(m.lastBalance.Add(m.tm.poll)) {
		m.balance(ctx)
	}
	m.expire()
	return m.nextWake()
}

// nextWake is the earliest of: a lease's renewal, a lease's end of validity,
// the next heartbeat and the next poll.
func (m *Manager) nextWake() time.Time {
	next := m.lastBalance.Add(m.tm.poll)
	if m.settled.After(m.now()) && m.settled.Before(next) {
		next = m.settled
	}
	if m.nextHeartbeat.Before(next) {
		next = m.nextHeartbeat
	}
	for _, l := range m.owned {
		for _, t := range []time.Time{l.next, m.tm.validUntil(l)} {
			if t.Before(next) {
				next = t
			}
		}
	}
	return next
}

// shutdown ends Run: Lost for every shard, then, unless crashing, the member
// key and the leases are deleted so that others need not wait for the TTL.
func (m *Manager) shutdown(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	crash := m.crash.Load()
	if !crash {
		m.withTimeout(ctx, func(ctx context.Context) error { return m.members.Delete(ctx, m.cfg.Node) })
	}
	for _, l := range m.sortedOwned() {
		if crash {
			m.lose(l, "abandoned")
			continue
		}
		m.release(ctx, l, "released")
	}
}

// opTimeout bounds one request: never past the end of validity of any lease
// we hold, so that a slow server cannot delay a Lost.
func (m *Manager) opTimeout() time.Duration {
	d := m.tm.op
	now := m.now()
	for _, l := range m.owned {
		d = min(d, m.tm.validUntil(l).Sub(now))
	}
	return max(d, time.Millisecond)
}

// withTimeout runs one request under opTimeout. Cancelling Run's context
// does not cut a request short (its outcome would be unknown: a lease
// created or not); the loops check ctx between requests instead.
func (m *Manager) withTimeout(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.opTimeout())
	defer cancel()
	return f(ctx)
}

// own records a new or renewed lease.
func (m *Manager) own(l lease) {
	m.owned[l.shard] = l
	m.mu.Lock()
	m.held[l.shard] = l
	m.mu.Unlock()
}

// lose forgets a lease, then reports Lost: from here on Holds is false.
func (m *Manager) lose(l lease, reason string) {
	delete(m.owned, l.shard)
	m.mu.Lock()
	delete(m.held, l.shard)
	m.mu.Unlock()
	m.log.Info("shard lost", "shard", l.shard, "token", l.token, "reason", reason)
	m.onEvent(Event{Kind: Lost, Shard: l.shard, Token: l.token, Reason: reason})
}

// Holds reports whether this node owns shard under the fencing token and
// may still use it now: the check to make before each unit of work.
func (m *Manager) Holds(shard int, token uint64) bool {
	m.mu.Lock()
	l, ok := m.held[shard]
	m.mu.Unlock()
	return ok && l.token == token && m.now().Before(m.tm.validUntil(l))
}

// MayWrite reports whether this node may still write what it decided
// under shard's lease with token: while it Holds the lease, and while it
// hands the lease over on purpose (from its Lost until the key is deleted,
// when BeforeRelease finishes the shard's work), but never past the end of
// the lease's validity: a node cut off until its lease could pass on must
// not write over the next owner's work.
func (m *Manager) MayWrite(shard int, token uint64) bool {
	m.mu.Lock()
	l, ok := m.held[shard]
	if !ok {
		l, ok = m.releasing[shard]
	}
	m.mu.Unlock()
	return ok && l.token == token && m.now().Before(m.tm.validUntil(l))
}

// Owned returns the shards this node holds now, with their fencing tokens.
func (m *Manager) Owned() map[int]uint64 {
	m.mu.Lock()
	held := maps.Clone(m.held)
	m.mu.Unlock()
	now := m.now()
	out := make(map[int]uint64, len(held))
	for s, l := range held {
		if now.Before(m.tm.validUntil(l)) {
			out[s] = l.token
		}
	}
	return out
}

// Renewals counts the lease renewals this Manager has written.
func (m *Manager) Renewals() int64 { return m.renewed.Load() }

// Owners reads which node holds which shard from the leases bucket, as any
// node (or a status command) sees it. Shards without a live lease are absent.
func (m *Manager) Owners(ctx context.Context) (map[int]string, error) {
	return owners(ctx, m.leases, m.cfg.Shards)
}

func owners(ctx context.Context, leases kvStore, shards int) (map[int]string, error) {
	entries, err := snapshot(ctx, leases)
	if err != nil {
		return nil, fmt.Errorf("read leases: %w", err)
	}
	out := make(map[int]string, len(entries))
	for k, e := range entries {
		if s, ok := keyShard(k, shards); ok {
			out[s] = parseStamp(e.Value()).Node
		}
	}
	return out, nil
}

// warn logs a failed operation on the leases: as a warning while the
// server is reachable, at debug level while it is not (the node said once
// that it lost the server; every heartbeat would say it again, every
// three sixteenths of a TTL).
func (m *Manager) warn(msg string, args ...any) {
	level := slog.LevelWarn
	if m.conn != nil && !m.conn.IsConnected() {
		level = slog.LevelDebug
	}
	m.log.Log(context.Background(), level, msg, args...)
}
