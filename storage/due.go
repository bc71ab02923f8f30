package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
)

// Due kinds: what becomes due.
const (
	DuePage    byte = 'p'
	DueSitemap byte = 's'
)

// Due is one scheduled recrawl.
type Due struct {
	At   time.Time
	Kind byte
	URL  string
}

func dueKey(d Due) []byte {
	k := make([]byte, 9, 9+len(d.URL))
	binary.BigEndian.PutUint64(k, uint64(d.At.UnixNano()))
	k[8] = d.Kind
	return append(k, d.URL...)
}

// ScheduleDue records that a URL is due at d.At. Entries sort by time.
func (t *Tx) ScheduleDue(d Due) error {
	if err := t.b(bucketDue).Put(dueKey(d), nil); err != nil {
		return fmt.Errorf("schedule %q: %w", d.URL, err)
	}
	return nil
}

// PopDue removes and returns up to max entries due at or before now, in
// time order.
func (t *Tx) PopDue(now time.Time, max int) ([]Due, error) {
	b := t.tx.Bucket(bucketDue)
	if b == nil {
		return nil, nil
	}
	var out []Due
	var keys [][]byte
	limit := make([]byte, 8)
	binary.BigEndian.PutUint64(limit, uint64(now.UnixNano()))
	c := b.Cursor()
	for k, _ := c.First(); k != nil && len(out) < max && bytes.Compare(k[:8], limit) <= 0; k, _ = c.Next() {
		if len(k) < 9 {
			continue
		}
		out = append(out, Due{At: time.Unix(0, int64(binary.BigEndian.Uint64(k[:8]))), Kind: k[8], URL: string(k[9:])})
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// NextDue returns the earliest due time, ok false when nothing is
// scheduled.
func (t *Tx) NextDue() (time.Time, bool) {
	b := t.tx.Bucket(bucketDue)
	if b == nil {
		return time.Time{}, false
	}
	k, _ := b.Cursor().First()
	if len(k) < 9 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(k[:8]))), true
}

// CountDue returns how many recrawls are scheduled.
func (t *Tx) CountDue() int {
	b := t.tx.Bucket(bucketDue)
	if b == nil {
		return 0
	}
	return b.Stats().KeyN
}

// CountDueBefore returns how many recrawls are due before t, counted up
// to max (a status line, not a scan of a huge schedule).
func (t *Tx) CountDueBefore(before time.Time, max int) int {
	b := t.tx.Bucket(bucketDue)
	if b == nil {
		return 0
	}
	limit := make([]byte, 8)
	binary.BigEndian.PutUint64(limit, uint64(before.UnixNano()))
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil && n < max && bytes.Compare(k[:min(8, len(k))], limit) < 0; k, _ = c.Next() {
		n++
	}
	return n
}
