// Package gate bounds how many goroutines run a task at once, with a
// limit that can change while they run and a shutdown that turns away
// every task not started yet.
package gate

import "sync"

// Gate bounds how many workers run a task at once. Tasks may wait for a
// worker (the crawler keeps some ahead of them), so worker goroutines are
// not the bound by themselves: a live reconfiguration that lowers workers
// leaves the goroutines already started, and without the gate they would
// start the waiting tasks beside the running ones. The coordinator sets
// the limit; workers pass the gate around each task.
type Gate struct {
	mu      sync.Mutex
	cond    sync.Cond
	running int
	limit   int
	shut    bool
}

// New returns a gate letting limit tasks run at once.
func New(limit int) *Gate {
	g := &Gate{limit: limit}
	g.cond.L = &g.mu
	return g
}

// Enter waits for room to run one more task. It reports false, at once or
// when it comes, if the gate was shut: the crawl is stopping and the
// task must not be started.
func (g *Gate) Enter() bool {
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

// Leave ends a task entered.
func (g *Gate) Leave() {
	g.mu.Lock()
	g.running--
	g.mu.Unlock()
	g.cond.Signal()
}

// SetLimit changes how many may run at once; tasks running above a
// lowered limit finish, and no new one starts until they are below it.
func (g *Gate) SetLimit(n int) {
	g.mu.Lock()
	g.limit = max(n, 1)
	g.mu.Unlock()
	g.cond.Broadcast()
}

// Shutdown turns away every task that has not entered, waiting or not.
func (g *Gate) Shutdown() {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

// Busy is how many tasks are running: requests under way (with the
// parse of what came back), not tasks still waiting for a worker.
func (g *Gate) Busy() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running
}
