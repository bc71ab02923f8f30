package storage

import (
	"encoding/json"
	"fmt"
	bolt "go.etcd.io/bbolt"
	"math"
	"slices"
	"time"
)

// Host records are written once per transaction, at its flush. The
// crawler saves a host's record after each of its requests, and a group
// commit holds several requests of each host (about six in the crawl
// benchmarks): encoding the record (JSON) and putting it each time cost
// about a tenth of recording a page, for values the next save replaces.
// The transaction keeps the last record put per host instead; GetHost and
// ForEachHost see it as if it were written.

// GetHost returns a host's record, zero if none.
func (t *Tx) GetHost(authority string) (HostRecord, error) {
	if h, ok := t.hosts[authority]; ok {
		h.Rates = slices.Clone(h.Rates)
		return h, nil
	}
	var h HostRecord
	v := t.b(bucketHosts).Get([]byte(authority))
	if v == nil {
		return h, nil
	}
	if err := json.Unmarshal(v, &h); err != nil {
		return h, badValue{fmt.Errorf("decode host %q: %w", authority, err)}
	}
	return h, nil
}

// HasHost reports whether a host has a record, committed or put in this
// transaction (GetHost reads a missing one as zero).
func (t *Tx) HasHost(authority string) bool {
	if _, ok := t.hosts[authority]; ok {
		return true
	}
	return t.b(bucketHosts).Get([]byte(authority)) != nil
}

// PutHost writes a host's record: it is stored when the transaction
// commits, and read back as put until then. A record JSON cannot encode
// (a NaN, a time past year 9999) is refused here, as writing it would be.
func (t *Tx) PutHost(authority string, h HostRecord) error {
	// What the put at flush would refuse, refused now: the error then
	// belongs to this call, not to the whole batch's commit.
	if !t.tx.Writable() {
		return fmt.Errorf("put host %q: %w", authority, bolt.ErrTxNotWritable)
	}
	if authority == "" {
		return fmt.Errorf("put host: %w", bolt.ErrKeyRequired)
	}
	if err := encodableHost(h); err != nil {
		return fmt.Errorf("encode %s %q: %w", bucketHosts, authority, err)
	}
	if t.hosts == nil {
		t.hosts = map[string]HostRecord{}
	}
	h.Rates = slices.Clone(h.Rates) // the caller's slice may change before the flush
	t.hosts[authority] = h
	return nil
}

// ForEachHost calls fn for every host record, those put in this
// transaction included.
func (t *Tx) ForEachHost(fn func(authority string, h HostRecord) error) error {
	if err := t.flushHosts(); err != nil {
		return err
	}
	return t.b(bucketHosts).ForEach(func(k, v []byte) error {
		var h HostRecord
		if err := json.Unmarshal(v, &h); err != nil {
			return badValue{fmt.Errorf("decode host %q: %w", k, err)}
		}
		return fn(string(k), h)
	})
}

// flushHosts writes the host records put since the last flush.
func (t *Tx) flushHosts() error {
	for authority, h := range t.hosts {
		if err := t.putJSON(bucketHosts, authority, h); err != nil {
			return err
		}
	}
	clear(t.hosts)
	return nil
}

// encodableHost returns what would make json.Marshal fail on h: a float
// that is not finite, or a time RFC 3339 cannot write (a year past 9999,
// a zone offset of 24 hours or more).
func encodableHost(h HostRecord) error {
	for _, f := range []float64{h.Interval, h.NewPerDay, h.Freshness, h.MeanIntervalS, h.TTFBMs, h.ErrorDelayS} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("unsupported value: %v", f)
		}
	}
	var buf [64]byte
	for _, at := range []time.Time{h.LastRequest, h.HoldUntil, h.NewAt} {
		if _, err := at.AppendText(buf[:0]); err != nil {
			return err
		}
	}
	return nil
}
