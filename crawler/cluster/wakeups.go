package cluster

import "github.com/nats-io/nats.go/jetstream"

// wakeups turns the buckets' change streams into one flag: something
// happened that may change this node's fair share or free a shard (a lease
// deleted, a member joining or leaving), so balance now rather than at the
// next poll. Expiries are not reported by the server; the poll finds them.
type wakeups struct {
	leases, members <-chan jetstream.KeyValueEntry
	known           map[string]bool               // members seen at the last count
	onLease         func(jetstream.KeyValueEntry) // sees every lease change, if set
	nudged          bool
}

func (w *wakeups) lease(e jetstream.KeyValueEntry, ok bool) {
	if !ok {
		w.leases = nil
	}
	if e != nil && w.onLease != nil {
		w.onLease(e)
	}
	w.nudged = w.nudged || (e != nil && e.Operation() != jetstream.KeyValuePut)
}

func (w *wakeups) member(e jetstream.KeyValueEntry, ok bool) {
	if !ok {
		w.members = nil
	}
	w.nudged = w.nudged || (e != nil && (e.Operation() != jetstream.KeyValuePut || !w.known[e.Key()]))
}

// drain takes every change already queued, so that a burst (a node handing
// over all its shards) causes one balance, not one per key.
func (w *wakeups) drain() {
	for {
		select {
		case e, ok := <-w.leases:
			w.lease(e, ok)
		case e, ok := <-w.members:
			w.member(e, ok)
		default:
			return
		}
	}
}
