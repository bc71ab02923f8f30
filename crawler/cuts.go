package crawler

import (
	"context"
	"sync"
	"sync/atomic"
)

// cuts is what lets CancelHosts, from any goroutine, cut short the tasks
// of hosts a cluster node no longer serves: a registry of the dispatched
// tasks by host, each with the cancel function of its request. A task
// still waiting for a worker is taken back outright (withdrawn): its
// result is handed in at once, so its host is free now rather than when a
// worker gets to it (with every worker on slow requests, up to a request
// timeout, and a shard handover waits for it), and the worker that comes
// to it later skips it.
type cuts struct {
	mu     sync.Mutex
	byHost map[string]*hostCancel
	// withdrawn counts tasks taken back that still sit in the tasks
	// channel until a worker skips them: dispatch adds them to its
	// in-flight count, or repeated cuts with every worker stuck would
	// fill the channel and block the coordinator.
	withdrawn atomic.Int64
	skipped   chan struct{} // a worker skipped one: dispatch may have room again
	results   chan<- result // where a withdrawn task's result goes (set by Run)
}

// hostCancel is one dispatched task as CancelHosts sees it.
type hostCancel struct {
	cancel context.CancelFunc
	cut    bool
	// Exactly one of these happens: a worker takes the task (started),
	// or CancelHosts takes it back while it still waits for a worker
	// (withdrawn) and hands in its result.
	started, withdrawn bool
	task               task // as dispatched, for the result of a withdrawal
}

func newCuts() *cuts {
	return &cuts{byHost: map[string]*hostCancel{}, skipped: make(chan struct{}, 1)}
}

func notCut() bool { return false }

// register gives t the context of its request, derived from parent, and
// records it under its host. t.stop, called when the request is over,
// reports whether it was cut short; t.begin is a worker's claim on it,
// false if it was taken back first.
func (k *cuts) register(t *task, parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	hc := &hostCancel{cancel: cancel}
	host := t.host
	t.ctx = ctx
	t.stop = func() bool {
		k.mu.Lock()
		if k.byHost[host] == hc {
			delete(k.byHost, host)
		}
		cut := hc.cut
		k.mu.Unlock()
		cancel()
		return cut
	}
	t.begin = func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		hc.started = !hc.withdrawn
		return hc.started
	}
	hc.task = *t
	k.mu.Lock()
	k.byHost[host] = hc
	k.mu.Unlock()
}

// cut cuts the tasks of the hosts match selects, taking back those no
// worker has begun, and says how many it cut.
func (k *cuts) cut(match func(host string) bool) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for host, hc := range k.byHost {
		if !match(host) || hc.cut {
			continue
		}
		hc.cut = true
		hc.cancel()
		n++
		if !hc.started {
			hc.withdrawn = true
			k.withdrawn.Add(1)
			delete(k.byHost, host)
			r := result{task: hc.task, interrupted: true}
			// The results channel has room for a result of every task
			// in flight (see Run), this one's included, so the send
			// does not wait; from a goroutine all the same, as the
			// lock is held.
			go func() { k.results <- r }()
		}
	}
	return n
}

// skip is a worker's note that it skipped a task taken back.
func (k *cuts) skip() {
	k.withdrawn.Add(-1)
	select {
	case k.skipped <- struct{}{}:
	default:
	}
}

// waiting is how many tasks taken back no worker has skipped yet.
func (k *cuts) waiting() int { return int(k.withdrawn.Load()) }
