package storage

import (
	"errors"

	bolt "go.etcd.io/bbolt"
)

// Batch is a write transaction that one goroutine fills and another
// commits. The crawler's coordinator records results into a Batch and
// hands it to a committer goroutine, so that the commit's page writes and
// fsync overlap the coordinator's next decisions instead of stalling them.
//
// Only one write transaction exists at a time: Begin (like Update) waits
// until the previous Batch is committed or rolled back. A goroutine that
// holds an open Batch must therefore not call Update or Begin before it
// hands the Batch on. Reads (View) may run alongside; they see the last
// committed state.
type Batch struct {
	d   *DB
	btx *bolt.Tx
	tx  *Tx
	err error // the first failure of Do: the batch is spoilt
}

// Begin opens a Batch. After damage was found, it returns that
// *DamagedError.
func (d *DB) Begin() (*Batch, error) {
	if de := d.damage.Load(); de != nil {
		return nil, de
	}
	var b *Batch
	err := d.guard("update", func() error {
		btx, err := d.bolt.Begin(true)
		if err != nil {
			return err
		}
		b = &Batch{d: d, btx: btx, tx: newTx(btx)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Do runs fn in the batch. An error (or damage found meanwhile) spoils the
// batch: every later Do returns it and Commit rolls the batch back. A
// caller that must not lose the batch to one operation's failure runs that
// operation in a batch of its own.
func (b *Batch) Do(fn func(*Tx) error) error {
	if b.err != nil {
		return b.err
	}
	b.err = b.d.guard("update", func() error { return fn(b.tx) })
	return b.err
}

// Commit writes the batch, counters included, and syncs it as Update
// does; a spoilt batch is rolled back and its error returned. It may run
// on another goroutine than Begin and Do did, once they are done.
func (b *Batch) Commit() error {
	if b.err != nil {
		b.Rollback()
		return b.err
	}
	err := b.d.guard("update", func() error {
		if err := b.tx.flush(); err != nil {
			return err
		}
		return b.btx.Commit()
	})
	if err != nil {
		b.Rollback()
	}
	return err
}

// Rollback discards the batch. It is idempotent.
func (b *Batch) Rollback() {
	b.d.guard("rollback", func() error {
		// A transaction already closed (committed, or rolled back by
		// bbolt itself after a failed commit) reports ErrTxClosed.
		if err := b.btx.Rollback(); err != nil && !errors.Is(err, bolt.ErrTxClosed) {
			return err
		}
		return nil
	})
}

// LastSeq returns the queue position the last Enqueue in this transaction
// gave its URL, 0 if there was none: a caller that keeps a host's next
// queue entries in memory learns where a URL it just queued stands.
func (t *Tx) LastSeq() uint64 {
	if !t.seqRead {
		return 0
	}
	return t.seq
}
