package cluster

import (
	"errors"
	"testing"
	"time"
)

func TestTiming(t *testing.T) {
	tests := []struct {
		ttl                               time.Duration
		valid, renew, retry, poll, margin time.Duration
	}{
		{10 * time.Second, 7500 * time.Millisecond, 2500 * time.Millisecond, 625 * time.Millisecond, time.Second, 2500 * time.Millisecond},
		{2 * time.Second, 1500 * time.Millisecond, 500 * time.Millisecond, 125 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond},
		{time.Second, 750 * time.Millisecond, 250 * time.Millisecond, 62500 * time.Microsecond, 250 * time.Millisecond, 250 * time.Millisecond},
	}
	for i, tt := range tests {
		tm := newTiming(tt.ttl)
		if tm.valid != tt.valid || tm.renew != tt.renew || tm.retry != tt.retry || tm.poll != tt.poll || tm.margin != tt.margin {
			t.Errorf("step %d: newTiming(%s) = %+v", i, tt.ttl, tm)
		}
		if tm.valid+tm.margin != tt.ttl {
			t.Errorf("step %d: valid %s + margin %s != ttl %s", i, tm.valid, tm.margin, tt.ttl)
		}
		// Two renewal periods fit inside the validity, with room for retries.
		if 2*tm.renew >= tm.valid {
			t.Errorf("step %d: renew %s leaves no second chance within %s", i, tm.renew, tm.valid)
		}
	}
}

func TestLeaseValidity(t *testing.T) {
	tm := newTiming(10 * time.Second)
	t0 := time.Unix(1000, 0)
	l := tm.written(lease{shard: 3, token: 7}, 9, t0)
	if l.rev != 9 || l.token != 7 || !l.sent.Equal(t0) || !l.next.Equal(t0.Add(2500*time.Millisecond)) {
		t.Fatalf("written = %+v", l)
	}
	if got, want := tm.validUntil(l), t0.Add(7500*time.Millisecond); !got.Equal(want) {
		t.Errorf("validUntil = %v, want %v", got, want)
	}
}

func TestHolds(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &Manager{tm: newTiming(4 * time.Second), now: func() time.Time { return now }, held: map[int]lease{}}
	m.held[5] = m.tm.written(lease{shard: 5, token: 42}, 43, now)
	steps := []struct {
		after time.Duration
		shard int
		token uint64
		want  bool
	}{
		{0, 5, 42, true},
		{0, 5, 43, false}, // the renewal revision is not the token
		{0, 4, 42, false},
		{2999 * time.Millisecond, 5, 42, true},
		{3 * time.Second, 5, 42, false}, // TTL - margin on our clock
	}
	start := now
	for i, s := range steps {
		now = start.Add(s.after)
		if got := m.Holds(s.shard, s.token); got != s.want {
			t.Errorf("step %d: at +%s Holds(%d, %d) = %v, want %v", i, s.after, s.shard, s.token, got, s.want)
		}
	}
	now = start.Add(3 * time.Second)
	if got := m.Owned(); len(got) != 0 {
		t.Errorf("Owned() after validity = %v, want none", got)
	}
}

func TestFairShare(t *testing.T) {
	tests := []struct{ shards, members, want int }{
		{64, 0, 64}, {64, 1, 64}, {64, 3, 22}, {64, 4, 16}, {64, 5, 13}, {64, 64, 1}, {64, 100, 1}, {1, 3, 1},
	}
	for i, tt := range tests {
		got := fairShare(tt.shards, tt.members)
		if got != tt.want {
			t.Errorf("step %d: fairShare(%d, %d) = %d, want %d", i, tt.shards, tt.members, got, tt.want)
		}
		if got*max(tt.members, 1) < tt.shards {
			t.Errorf("step %d: %d members x %d < %d shards: some shard would stay free", i, tt.members, got, tt.shards)
		}
	}
}

func TestReplicasSafe(t *testing.T) {
	tests := []struct {
		version  string
		replicas int
		safe     bool
	}{
		{"2.9.10", 1, true}, // one replica: the check is under the stream lock
		{"2.9.10", 3, false},
		{"2.10.18", 3, false},
		{"2.11.0", 3, true},
		{"2.11.0-RC.1", 3, true},
		{"v2.15.2", 3, true},
		{"3.0.0", 5, true},
		{"", 3, false}, // unknown: not trusted
		{"garbage", 1, true},
	}
	for i, tt := range tests {
		err := replicasSafe(tt.version, tt.replicas)
		if (err == nil) != tt.safe || (err != nil && !errors.Is(err, ErrUnsafeServer)) {
			t.Errorf("step %d: replicasSafe(%q, %d) = %v, want safe %v", i, tt.version, tt.replicas, err, tt.safe)
		}
	}
}
