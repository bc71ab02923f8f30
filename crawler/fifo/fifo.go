// Package fifo is a first-in, first-out queue that keeps its array.
//
// The crawler's coordinator queues every worker result until it is
// recorded, thousands a second, and takes them from the front in chunks
// while more arrive at the back. A slice taken from the front loses the
// capacity before it, so appends kept growing new arrays (about 1.3 KB
// allocated per request in the 5,000-host benchmark, where results pile up
// behind a commit); a ring reuses one array for the whole crawl.
package fifo

// Queue is a FIFO queue of T. The zero value is an empty queue. It is not
// safe for concurrent use: it has one owner.
type Queue[T any] struct {
	buf  []T // a ring: the queue is buf[head:head+n], wrapping around
	head int
	n    int
}

// Len is the number of values queued.
func (q *Queue[T]) Len() int { return q.n }

// Push adds v at the back.
func (q *Queue[T]) Push(v T) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[q.index(q.n)] = v
	q.n++
}

// At is the i-th value from the front (0 is the front), in place: it
// stays valid until the next Push or Drop. It panics if i is out of
// range, as a slice index would.
func (q *Queue[T]) At(i int) *T {
	if i < 0 || i >= q.n {
		panic("fifo: index out of range")
	}
	return &q.buf[q.index(i)]
}

// Drop removes the first n values (all of them if fewer are queued),
// clearing their slots so that what they point to can be collected.
func (q *Queue[T]) Drop(n int) {
	n = min(max(n, 0), q.n)
	var zero T
	for i := 0; i < n; i++ {
		q.buf[q.index(i)] = zero
	}
	q.n -= n
	if q.n == 0 {
		q.head = 0
		return
	}
	q.head = q.index(n)
}

func (q *Queue[T]) index(i int) int {
	i += q.head
	if i >= len(q.buf) {
		i -= len(q.buf)
	}
	return i
}

// grow doubles the array (16 values at first), moving the queue to its
// start.
func (q *Queue[T]) grow() {
	buf := make([]T, max(16, 2*len(q.buf)))
	m := copy(buf, q.buf[q.head:])
	copy(buf[m:], q.buf[:q.head])
	q.buf, q.head = buf, 0
}
