package gate

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestGate: at most the limit run at once; a limit lowered while tasks
// run lets them finish and starts no waiting one until the running are
// below it; a shutdown turns away every task waiting, and every later one.
func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(2)
		var mu sync.Mutex
		running, most := 0, 0
		var wg sync.WaitGroup
		task := func(d time.Duration) func() {
			return func() {
				if !g.Enter() {
					return
				}
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
				time.Sleep(d)
				mu.Lock()
				running--
				mu.Unlock()
				g.Leave()
			}
		}
		wg.Go(task(time.Second))
		wg.Go(task(3 * time.Second))
		synctest.Wait()
		if g.Busy() != 2 {
			t.Fatalf("busy %d, want 2", g.Busy())
		}
		for range 3 {
			wg.Go(task(time.Second)) // wait at the gate
		}
		synctest.Wait()
		g.SetLimit(1)
		time.Sleep(1500 * time.Millisecond) // the 1 s task is over; the 3 s one runs
		synctest.Wait()
		if b := g.Busy(); b != 1 {
			t.Errorf("with the limit lowered to 1 and one task still running, %d run", b)
		}
		wg.Wait()
		if most != 2 {
			t.Errorf("at most %d ran at once, want 2", most)
		}
		// Shut: a waiting task is turned away, and so is a later one.
		entered := make(chan bool, 1)
		if !g.Enter() { // hold the only place
			t.Fatal("could not enter an idle gate")
		}
		go func() { entered <- g.Enter() }()
		synctest.Wait()
		g.Shutdown()
		if <-entered {
			t.Error("a waiting task entered after the shutdown")
		}
		if g.Enter() {
			t.Error("a task entered after the shutdown")
		}
		g.Leave()
	})
	var none *Gate
	if none.Busy() != 0 {
		t.Error("a nil gate is busy")
	}
}
