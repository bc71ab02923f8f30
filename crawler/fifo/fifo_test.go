package fifo

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstSlice runs random pushes and drops against a plain slice:
// the queue holds the same values in the same order after every step.
func TestAgainstSlice(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var q Queue[int]
		var model []int
		next := 0
		for step := 0; step < 2000; step++ {
			if rng.IntN(3) > 0 {
				for k := rng.IntN(40); k > 0; k-- {
					q.Push(next)
					model = append(model, next)
					next++
				}
			} else {
				n := rng.IntN(120) - 5 // a negative n drops nothing
				q.Drop(n)
				model = model[min(max(n, 0), len(model)):]
			}
			if q.Len() != len(model) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, q.Len(), len(model))
			}
			for i, v := range model {
				if got := *q.At(i); got != v {
					t.Fatalf("seed %d step %d: At(%d) = %d, want %d", seed, step, i, got, v)
				}
			}
		}
	}
}

// TestDropClears: a dropped slot no longer holds its value, so that a
// result's page and body can be collected while the array lives on.
func TestDropClears(t *testing.T) {
	var q Queue[*[]byte]
	push := func(n int) {
		for i := 0; i < n; i++ {
			b := make([]byte, 1)
			q.Push(&b)
		}
	}
	// 10 in 16 slots, 8 dropped, 10 more: the queue wraps around the
	// array's end; then drop some of it.
	push(10)
	q.Drop(8)
	push(10)
	q.Drop(5)
	if q.head+q.n <= len(q.buf) {
		t.Fatalf("the queue does not wrap (head %d, %d values, %d slots): the test tests nothing", q.head, q.n, len(q.buf))
	}
	for i, p := range q.buf {
		inQueue := (i-q.head+len(q.buf))%len(q.buf) < q.n
		if p != nil && !inQueue {
			t.Errorf("slot %d outside the queue still holds a value", i)
		}
		if p == nil && inQueue {
			t.Errorf("slot %d inside the queue is empty", i)
		}
	}
	q.Drop(100)
	if q.Len() != 0 {
		t.Fatalf("Len %d after dropping everything", q.Len())
	}
	for i, p := range q.buf {
		if p != nil {
			t.Errorf("slot %d still holds a value", i)
		}
	}
}

// TestKeepsItsArray: a queue that is drained as fast as it fills, as the
// coordinator's is, allocates nothing once its array is big enough.
func TestKeepsItsArray(t *testing.T) {
	var q Queue[[64]byte]
	allocs := testing.AllocsPerRun(100, func() {
		for i := 0; i < 48; i++ {
			q.Push([64]byte{})
		}
		q.Drop(40)
		for q.Len() > 100 {
			q.Drop(16)
		}
	})
	if allocs > 0.1 {
		t.Errorf("%.1f allocations per round, want none once grown", allocs)
	}
}

func TestAtOutOfRangePanics(t *testing.T) {
	var q Queue[int]
	q.Push(1)
	defer func() {
		if recover() == nil {
			t.Error("At(1) of a one-value queue did not panic")
		}
	}()
	q.At(1)
}

// BenchmarkPushDrop is the coordinator's pattern: a chunk in, a chunk out.
func BenchmarkPushDrop(b *testing.B) {
	var q Queue[[512]byte]
	var v [512]byte
	for b.Loop() {
		for i := 0; i < 16; i++ {
			q.Push(v)
		}
		q.Drop(16)
	}
}
