package gate

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestGate: at most the limit run at once; a lowered limit lets those
// running finish and starts no new one until they are below it; a
// shutdown turns away every task waiting, and every later one.
func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(2)
		var mu sync.Mutex
		running, most := 0, 0
		var wg sync.WaitGroup
		task := func() {
			if !g.Enter() {
				return
			}
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(time.Second)
			mu.Lock()
			running--
			mu.Unlock()
			g.Leave()
		}
		for range 6 {
			wg.Go(task)
		}
		synctest.Wait()
		if g.Busy() != 2 {
			t.Errorf("busy %d, want 2", g.Busy())
		}
		g.SetLimit(1)
		wg.Wait()
		if most != 2 {
			t.Errorf("at most %d ran at once, want 2", most)
		}
		// Lowered to 1: two tasks at once must not happen again.
		most = 0
		for range 3 {
			wg.Go(task)
		}
		wg.Wait()
		if most != 1 {
			t.Errorf("after lowering to 1, at most %d ran at once", most)
		}
		// Shut: a waiting task is turned away, and so is a later one.
		g.SetLimit(1)
		entered := make(chan bool, 2)
		g.Enter() // hold the only place
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
