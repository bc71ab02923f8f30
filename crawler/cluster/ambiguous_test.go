package cluster

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// lyingKV performs writes but, while lie is set, reports them as timed out:
// the reply lost on the way back.
type lyingKV struct {
	kvStore
	lie *atomic.Bool
}

func (k lyingKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	rev, err := k.kvStore.Create(ctx, key, value, opts...)
	if err == nil && k.lie.Load() {
		return 0, context.DeadlineExceeded
	}
	return rev, err
}

func (k lyingKV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	rev, err := k.kvStore.Update(ctx, key, value, rev)
	if err == nil && k.lie.Load() {
		return 0, context.DeadlineExceeded
	}
	return rev, err
}

// startLying runs one Manager whose lease writes land but, while lie is set,
// look timed out.
func startLying(t *testing.T, lie *atomic.Bool) (*Manager, *ledger) {
	t.Helper()
	srv := MustEmbedded(t)
	_, js := MustJetStream(t, srv.ClientURL())
	l := newLedger(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := Config{NATS: srv.ClientURL(), Name: "lying", Node: "a", Shards: 4, LeaseTTL: testTTL}
	m, err := NewManager(ctx, js, cfg, ManagerOptions{OnEvent: func(e Event) { l.record("a", e) }})
	if err != nil {
		t.Fatal(err)
	}
	m.leases = lyingKV{m.leases, lie}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	return m, l
}

// A renewal whose reply is lost has still renewed the lease: the next
// renewal, refused for its stale revision, finds our own stamp and adopts
// the revision; no shard is lost and the tokens stay.
func TestRenewalReplyLost(t *testing.T) {
	t.Parallel()
	var lie atomic.Bool
	m, l := startLying(t, &lie)
	waitOwned(t, m, 4, testTTL)
	before := m.Owned()
	lie.Store(true)
	time.Sleep(newTiming(testTTL).renew * 3 / 2) // every renewal in this window lands but looks timed out
	lie.Store(false)
	time.Sleep(testTTL) // past the validity of the last write we know the time of
	if got := m.Owned(); len(got) != 4 {
		t.Errorf("after lost renewal replies: owns %v, want the 4 shards %v", got, before)
	} else {
		for s, tok := range before {
			if got[s] != tok {
				t.Errorf("shard %d: token %d, was %d", s, got[s], tok)
			}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.log {
		if strings.Contains(line, " lost ") {
			t.Errorf("unexpected: %s", line)
		}
	}
}

// A create whose reply is lost leaves a lease with our stamp that we do not
// know we hold: the next balance deletes it and takes the shard again at
// once, rather than leaving it unowned for the TTL.
func TestCreateReplyLost(t *testing.T) {
	t.Parallel()
	var lie atomic.Bool
	lie.Store(true)
	m, _ := startLying(t, &lie)
	time.Sleep(100 * time.Millisecond) // the first creates, all "timed out"
	lie.Store(false)
	start := time.Now()
	waitOwned(t, m, 4, testTTL)
	if took := time.Since(start); took >= testTTL-newTiming(testTTL).margin {
		t.Errorf("shards taken back after %s: the orphaned leases were left to expire", took)
	} else {
		t.Logf("orphaned leases deleted and taken again after %s", took.Round(time.Millisecond))
	}
}

func waitOwned(t *testing.T, m *Manager, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(m.Owned()) != n {
		if time.Now().After(deadline) {
			t.Fatalf("owns %v after %s, want %d shards", m.Owned(), within, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
