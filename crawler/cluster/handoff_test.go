package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// collector is a commit callback that records what it committed and can be
// told to fail (a crash before the commit).
type collector struct {
	mu   sync.Mutex
	urls []string
	fail bool
	seen chan struct{} // closed at the first commit attempt
	once sync.Once
}

func newCollector(fail bool) *collector { return &collector{fail: fail, seen: make(chan struct{})} }

func (c *collector) commit(_ context.Context, urls []string) error {
	c.once.Do(func() { close(c.seen) })
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail {
		return errors.New("test: crashed before commit")
	}
	c.urls = append(c.urls, urls...)
	return nil
}

func (c *collector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.urls)
}

// consume runs h.Consume for shard until the test ends or stop is called.
func consume(t *testing.T, h *Handoff, shard int, c *collector) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := h.Consume(ctx, shard, c.commit); !errors.Is(err, context.Canceled) {
			t.Errorf("Consume(shard %d) = %v, want context.Canceled", shard, err)
		}
	})
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

// waitURLs waits until c has committed every URL of want (sorted), and
// returns how many it committed more than once (delivery is at least once).
func waitURLs(t *testing.T, c *collector, want []string) (dups int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := c.got()
		slices.Sort(got)
		n := len(got)
		got = slices.Compact(got)
		if slices.Equal(got, want) {
			return n - len(got)
		}
		if time.Now().After(deadline) {
			t.Fatalf("committed %d URLs, want %d: %v", len(got), len(want), got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHandoffEmbedded(t *testing.T) {
	t.Parallel()
	srv := MustEmbedded(t)
	runHandoffScenario(t, srv.ClientURL(), 1)
}

// runHandoffScenario: URLs published for a shard reach its owner; an owner
// that dies before its commit loses nothing (the next owner gets them); a
// committed batch is acknowledged and not delivered again.
func runHandoffScenario(t *testing.T, url string, replicas int) {
	_, js := MustJetStream(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := NewHandoff(ctx, js, "handoff", 8, HandoffOptions{AckWait: 500 * time.Millisecond, Batch: 16, Replicas: replicas})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 40 {
		u := fmt.Sprintf("https://h%02d.example/", i)
		want = append(want, u)
		if err := h.Publish(ctx, 3, u); err != nil {
			t.Fatal(err)
		}
		if err := h.Publish(ctx, 4, u+"other"); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Publish(ctx, 8, "https://x/"); err == nil {
		t.Error("Publish to shard 8 of 8 succeeded")
	}

	// The first owner of shard 3 dies before committing anything.
	first := newCollector(true)
	stopFirst := consume(t, h, 3, first)
	select {
	case <-first.seen:
	case <-ctx.Done():
		t.Fatal("the first owner never got a batch")
	}
	stopFirst()

	// The next owner gets every URL (after AckWait for the batch the first
	// owner held), and nothing of shard 4.
	start := time.Now()
	second := newCollector(false)
	stopSecond := consume(t, h, 3, second)
	dups := waitURLs(t, second, want)
	t.Logf("next owner committed all %d URLs %s after the first died (%d twice)", len(want), time.Since(start).Round(time.Millisecond), dups)
	stopSecond()

	// Committed URLs are acknowledged: a third owner gets nothing more.
	third := newCollector(false)
	stopThird := consume(t, h, 3, third)
	time.Sleep(1500 * time.Millisecond) // > AckWait + a fetch window
	stopThird()
	if got := third.got(); len(got) != 0 {
		t.Errorf("acknowledged URLs delivered again: %v", got)
	}
	info, err := h.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 40 {
		t.Errorf("stream holds %d messages, want shard 4's 40 only", info.State.Msgs)
	}
}
