package crawler

import "sync"

// gate bounds how many workers run a task at once. Tasks may wait in the
// tasks channel for a worker (see aheadOf), so worker goroutines are not
// the bound by themselves: a live reconfiguration that lowers workers
// leaves the goroutines already started, and without the gate they would
// start the waiting tasks beside the running ones. The coordinator sets
// the limit; workers pass the gate around each task.
type gate struct {
	mu      sync.Mutex
	cond    sync.Cond
	running int
	limit   int
	shut    bool
}

func newGate(limit int) *gate {
	g := &gate{limit: limit}
	g.cond.L = &g.mu
	return g
}

// enter waits for room to run one more task. It reports false, at once or
// when it comes, if the gate was shut: the crawl is stopping and the
// task must not be started.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.shut && g.running >= g.limit {
		g.cond.Wait()
	}
	if g.shut {
		return false
	}
	g.running++
	return true
}

// leave ends a task entered.
func (g *gate) leave() {
	g.mu.Lock()
	g.running--
	g.mu.Unlock()
	g.cond.Signal()
}

// setLimit changes how many may run at once; tasks running above a
// lowered limit finish, and no new one starts until they are below it.
func (g *gate) setLimit(n int) {
	g.mu.Lock()
	g.limit = max(n, 1)
	g.mu.Unlock()
	g.cond.Broadcast()
}

// shutdown turns away every task that has not entered, waiting or not.
func (g *gate) shutdown() {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

// busy is how many tasks are running: requests under way (with the
// parse of what came back), not tasks still waiting for a worker.
func (g *gate) busy() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running
}
