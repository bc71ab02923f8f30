package storage

import (
	"errors"

	bolt "go.etcd.io/bbolt"
	"math"
	"reflect"
	"testing"
	"time"
)

// TestHostRecordsPutOncePerTx: host records put in a batch read back as
// put (GetHost, ForEachHost) before it commits, the last put of a host
// is what the file keeps, and a record JSON cannot write is refused by
// the put itself.
func TestHostRecordsPutOncePerTx(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := mustOpen(t)
	if err := d.Update(func(tx *Tx) error { return tx.PutHost("old", HostRecord{Pages: 7}) }); err != nil {
		t.Fatal(err)
	}
	b, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var rates []uint32 // the caller's slice, changed after each put
	steps := []struct {
		put  string
		h    HostRecord
		want map[string]HostRecord // every host record, as ForEachHost lists them
	}{
		{"a", HostRecord{LastRequest: t0, Pages: 1, Rates: []uint32{1, 2}},
			map[string]HostRecord{"old": {Pages: 7}, "a": {LastRequest: t0, Pages: 1, Rates: []uint32{1, 2}}}},
		{"a", HostRecord{LastRequest: t0.Add(time.Second), Pages: 2, Rates: []uint32{1, 2}},
			map[string]HostRecord{"old": {Pages: 7}, "a": {LastRequest: t0.Add(time.Second), Pages: 2, Rates: []uint32{1, 2}}}},
		{"old", HostRecord{Pages: 8},
			map[string]HostRecord{"old": {Pages: 8}, "a": {LastRequest: t0.Add(time.Second), Pages: 2, Rates: []uint32{1, 2}}}},
		{"b", HostRecord{Interval: 2},
			map[string]HostRecord{"old": {Pages: 8}, "a": {LastRequest: t0.Add(time.Second), Pages: 2, Rates: []uint32{1, 2}}, "b": {Interval: 2}}},
	}
	check := func(tx *Tx, step int, want map[string]HostRecord) {
		t.Helper()
		got := map[string]HostRecord{}
		if err := tx.ForEachHost(func(h string, r HostRecord) error { got[h] = r; return nil }); err != nil {
			t.Fatal(err)
		}
		for h, w := range want {
			if g, _ := tx.GetHost(h); !reflect.DeepEqual(g, w) {
				t.Errorf("step %d: GetHost(%q) = %+v, want %+v", step, h, g, w)
			}
			if !tx.HasHost(h) {
				t.Errorf("step %d: HasHost(%q) = false, want true", step, h)
			}
		}
		if tx.HasHost("nobody") {
			t.Errorf("step %d: HasHost of a host with no record = true", step)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("step %d: ForEachHost = %+v, want %+v", step, got, want)
		}
	}
	for i, s := range steps {
		if err := b.Do(func(tx *Tx) error {
			h := s.h
			rates = h.Rates
			if err := tx.PutHost(s.put, h); err != nil {
				return err
			}
			if len(rates) > 0 {
				rates[0] = 99
			}
			if !tx.HasHost(s.put) {
				t.Errorf("step %d: HasHost(%q) = false right after its put", i, s.put)
			}
			if i%2 == 0 {
				// GetHost alone, before ForEachHost writes the puts out.
				if g, _ := tx.GetHost(s.put); g.Pages != s.h.Pages || g.Interval != s.h.Interval {
					t.Errorf("step %d: GetHost(%q) = %+v, want %+v", i, s.put, g, s.h)
				}
				return nil
			}
			check(tx, i, s.want)
			return nil
		}); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	d.View(func(tx *Tx) error { check(tx, len(steps), steps[len(steps)-1].want); return nil })

	// PutHost itself refuses what JSON cannot hold, so the error is the
	// caller's and not the flush's (which would fail the whole batch).
	for _, bad := range []HostRecord{{Interval: math.NaN()}, {Freshness: math.Inf(1)}, {TTFBMs: math.NaN()}, {ErrorDelayS: math.Inf(1)},
		{HoldUntil: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		var putErr error
		err := d.Update(func(tx *Tx) error { putErr = tx.PutHost("bad", bad); return nil })
		if putErr == nil {
			t.Errorf("PutHost(%+v) = nil error, want one (the transaction's: %v)", bad, err)
		}
	}
}

// TestPutHostRefusedAtOnce: a host record a flush could not write is
// refused by PutHost itself (in a read-only transaction, or with no
// name), so the error is the caller's and not the whole batch's commit.
func TestPutHostRefusedAtOnce(t *testing.T) {
	d := mustOpen(t)
	if err := d.View(func(tx *Tx) error { return tx.PutHost("h.test", HostRecord{}) }); !errors.Is(err, bolt.ErrTxNotWritable) {
		t.Errorf("PutHost in a View: %v, want ErrTxNotWritable", err)
	}
	if err := d.Update(func(tx *Tx) error { return tx.PutHost("", HostRecord{}) }); !errors.Is(err, bolt.ErrKeyRequired) {
		t.Errorf("PutHost with no name: %v, want ErrKeyRequired", err)
	}
}
