// Package cuts lets a cluster node cut short, from any goroutine, the
// requests to hosts it no longer serves: a registry of the dispatched
// tasks by host, each with the cancel function of its request. A task
// still waiting for a worker is taken back outright (withdrawn): Withdrawn
// is called with it at once, so its host is free now rather than when a
// worker gets to it (with every worker on slow requests, up to a request
// timeout, and a shard handover waits for it), and the worker that comes
// to it later skips it.
package cuts

import (
	"context"
	"sync"
	"sync/atomic"
)

// Registry holds the dispatched tasks of type T by host. The zero value is
// not usable: see New.
type Registry[T any] struct {
	mu     sync.Mutex
	byHost map[string]*entry[T]
	// withdrawn counts tasks taken back that still wait where workers
	// take them from until a worker skips them: a dispatcher adds them
	// to its in-flight count (see Waiting), or repeated cuts with every
	// worker stuck would fill that channel and block it.
	withdrawn atomic.Int64
	skipped   chan struct{} // a worker skipped one: dispatch may have room again
	// Withdrawn is called with each task taken back before a worker
	// began it. It is called under the registry's lock: it must not
	// block nor call back into the registry (Cut, Register, a task's
	// stop or begin would deadlock), and it must be set before the first
	// Register.
	Withdrawn func(T)
}

// entry is one dispatched task as Cut sees it.
type entry[T any] struct {
	cancel context.CancelFunc
	cut    bool
	// Exactly one of these happens: a worker takes the task (started),
	// or Cut takes it back while it still waits for a worker (withdrawn).
	started, withdrawn bool
	task               T
}

// New returns an empty registry.
func New[T any]() *Registry[T] {
	return &Registry[T]{byHost: map[string]*entry[T]{}, skipped: make(chan struct{}, 1)}
}

// Register records task under host and returns the context of its
// request, derived from parent; stop, called when the request is over,
// reports whether it was cut short; begin is a worker's claim on it,
// false if it was taken back first.
func (k *Registry[T]) Register(host string, parent context.Context, task T) (ctx context.Context, stop, begin func() bool) {
	ctx, cancel := context.WithCancel(parent)
	e := &entry[T]{cancel: cancel, task: task}
	stop = func() bool {
		k.mu.Lock()
		if k.byHost[host] == e {
			delete(k.byHost, host)
		}
		cut := e.cut
		k.mu.Unlock()
		cancel()
		return cut
	}
	begin = func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		e.started = !e.withdrawn
		return e.started
	}
	k.mu.Lock()
	k.byHost[host] = e
	k.mu.Unlock()
	return ctx, stop, begin
}

// Cut cuts the tasks of the hosts match selects, taking back those no
// worker has begun, and says how many it cut. It does not block.
func (k *Registry[T]) Cut(match func(host string) bool) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for host, e := range k.byHost {
		if !match(host) || e.cut {
			continue
		}
		e.cut = true
		e.cancel()
		n++
		if !e.started {
			e.withdrawn = true
			k.withdrawn.Add(1)
			delete(k.byHost, host)
			if k.Withdrawn != nil {
				k.Withdrawn(e.task)
			}
		}
	}
	return n
}

// Skip is a worker's note that it skipped a task taken back.
func (k *Registry[T]) Skip() {
	k.withdrawn.Add(-1)
	select {
	case k.skipped <- struct{}{}:
	default:
	}
}

// Skipped receives a value when a worker skipped a task taken back.
func (k *Registry[T]) Skipped() <-chan struct{} { return k.skipped }

// Waiting is how many tasks taken back no worker has skipped yet.
func (k *Registry[T]) Waiting() int { return int(k.withdrawn.Load()) }
