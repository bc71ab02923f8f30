package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPointReadsSeeTheirTransaction: Seen, GetURL, Admitted and Dequeue,
// which read through the transaction's kept cursors, agree with a plain
// map after every step of random puts, enqueues and dequeues on
// thousands of keys (enough for several pages per bucket), within one
// transaction and across commits.
func TestPointReadsSeeTheirTransaction(t *testing.T) {
	d := mustOpen(t)
	rng := rand.New(rand.NewPCG(1, 2))
	type entry struct {
		host string
		seq  uint64
	}
	seen := map[string]bool{}
	queued := map[string][]entry{} // URL -> its queue entries
	hostQ := map[string]int{}
	url := func(i int) string { return fmt.Sprintf("http://h%d.test/page/%d", i%7, i) }
	for round := range 4 {
		b, err := d.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for step := range 1500 {
			i := rng.IntN(3000)
			u, h := url(i), fmt.Sprintf("h%d.test", i%7)
			err := b.Do(func(tx *Tx) error {
				switch rng.IntN(3) {
				case 0: // admit
					if tx.Seen(u) {
						return nil
					}
					if err := tx.PutURL(&URLRecord{URL: u, State: Queued, Depth: i}, ""); err != nil {
						return err
					}
					if err := tx.Enqueue(h, u); err != nil {
						return err
					}
					seen[u] = true
					queued[u] = append(queued[u], entry{h, tx.LastSeq()})
					hostQ[h]++
				case 1: // dequeue one of its entries, or a made-up one
					if es := queued[u]; len(es) > 0 {
						if err := tx.Dequeue(es[0].host, es[0].seq); err != nil {
							return err
						}
						queued[u] = es[1:]
						hostQ[h]--
					} else if err := tx.Dequeue(h, uint64(1e9+i)); err != nil {
						return err
					}
				case 2: // read
					r, err := tx.GetURL(u)
					if err != nil {
						return err
					}
					if (r != nil) != seen[u] || r != nil && r.Depth != i {
						t.Errorf("round %d step %d: GetURL(%q) = %+v, seen %v", round, step, u, r, seen[u])
					}
				}
				if tx.Seen(u) != seen[u] {
					t.Errorf("round %d step %d: Seen(%q) = %v, want %v", round, step, u, !seen[u], seen[u])
				}
				return nil
			})
			if err != nil {
				t.Fatalf("round %d step %d: %v", round, step, err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		d.View(func(tx *Tx) error {
			got := map[string]int{}
			tx.QueuedHosts(func(h string, n int) error { got[h] = n; return nil })
			for h, n := range hostQ {
				if got[h] != n {
					t.Errorf("round %d: %s queues %d, want %d", round, h, got[h], n)
				}
				var listed int
				tx.ForEachQueued(h, func(uint64, string) error { listed++; return nil })
				if listed != n {
					t.Errorf("round %d: %s lists %d queued, want %d", round, h, listed, n)
				}
			}
			return nil
		})
	}
}

// TestViewReadsKeepNoCursors: a read-only transaction's point reads keep
// no cursor (bbolt hands out a new Bucket per lookup there, so none would
// ever be found again), and a writable one keeps one per bucket however
// many reads it makes. Kept in a View, 30,000 reads scanned 30,000 cursors
// each by the end: 2.9 s for what took 191 ms.
func TestViewReadsKeepNoCursors(t *testing.T) {
	d := mustOpen(t)
	const n = 200
	if err := d.Update(func(tx *Tx) error {
		for i := range n {
			u := fmt.Sprintf("http://h.test/%d", i)
			if err := tx.PutURL(&URLRecord{URL: u, State: Queued, Parent: "http://h.test/"}, ""); err != nil {
				return err
			}
		}
		for i := range n {
			if !tx.Seen(fmt.Sprintf("http://h.test/%d", i)) {
				return fmt.Errorf("%d not seen", i)
			}
		}
		if len(tx.cursors) > 2 { // urls, parent ids
			return fmt.Errorf("writable: %d cursors kept after %d reads, want one per bucket", len(tx.cursors), n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := d.View(func(tx *Tx) error {
		for i := range n {
			r, err := tx.GetURL(fmt.Sprintf("http://h.test/%d", i))
			if err != nil || r == nil || r.Parent != "http://h.test/" {
				return fmt.Errorf("GetURL %d: %+v %v", i, r, err)
			}
		}
		if len(tx.cursors) != 0 {
			return fmt.Errorf("read-only: %d cursors kept after %d reads, want none", len(tx.cursors), n)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}
