package storage

import (
	"bytes"
	"fmt"
	"strings"
)

// Queue values. The queue bucket maps a host and a sequence number (keys:
// queuekeys.go) to a normal URL,
// which nearly always starts with "http://" or "https://" and the
// authority already in the key. The value keeps only the rest behind a
// marker byte; values written before start with 'h' and are the whole URL.
const (
	queueRaw   = 0x00 // the whole URL follows (its authority is another)
	queueHTTP  = 0x01 // "http://" + authority + the rest
	queueHTTPS = 0x02 // "https://" + authority + the rest
)

// queueValue is the value Enqueue stores for url under authority.
func queueValue(authority, url string) []byte {
	marker, rest := byte(queueRaw), url
	if r, ok := strings.CutPrefix(url, "https://"); ok {
		marker, rest = queueHTTPS, r
	} else if r, ok := strings.CutPrefix(url, "http://"); ok {
		marker, rest = queueHTTP, r
	}
	if r, ok := strings.CutPrefix(rest, authority); ok && marker != queueRaw {
		rest = r
	} else {
		marker, rest = queueRaw, url
	}
	v := make([]byte, 0, 1+len(rest))
	return append(append(v, marker), rest...)
}

// queueURL decodes a queue value stored under authority.
func queueURL(authority string, v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case queueRaw:
		return string(v[1:])
	case queueHTTP:
		return "http://" + authority + string(v[1:])
	case queueHTTPS:
		return "https://" + authority + string(v[1:])
	}
	return string(v) // written before the markers
}

// queueKeyAuthority splits an old-form queue key into its authority and sequence
// number; ok is false for a key of another shape (damage).
func queueKeyAuthority(k []byte) (authority string, seq uint64, ok bool) {
	if len(k) < 9 || k[len(k)-9] != 0 {
		return "", 0, false
	}
	return string(k[:len(k)-9]), u64(k[len(k)-8:]), true
}

// Enqueue appends a normal URL to its host's queue, under the host's
// queue id (allocated here, in this transaction, for a host's first URL).
func (t *Tx) Enqueue(authority, url string) error {
	seq, err := t.nextSeq()
	if err != nil {
		return err
	}
	id, _, err := t.queueHostID(authority, true)
	if err != nil {
		return fmt.Errorf("enqueue %q: %w", url, err)
	}
	if err := t.b(bucketQueue).Put(queueKeyFor(id, seq), queueValue(authority, url)); err != nil {
		return fmt.Errorf("enqueue %q: %w", url, err)
	}
	t.hostQ[authority]++
	return nil
}

// Head returns the first queued URL of a host and its sequence number.
// Entries under the old key form come first: a file written before the
// host ids has them, and they were queued before any under the id.
func (t *Tx) Head(authority string) (url string, seq uint64, ok bool) {
	c := t.b(bucketQueue).Cursor()
	prefix := append([]byte(authority), 0)
	if k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8 {
		return queueURL(authority, v), u64(k[len(prefix):]), true
	}
	id, ok, err := t.queueHostID(authority, false)
	if err != nil || !ok {
		// A damaged id reads as an empty queue here; salvage rebuilds it.
		return "", 0, false
	}
	prefix = queueHostPrefix(id)
	k, v := c.Seek(prefix)
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return "", 0, false
	}
	seq, ok = queueSeqAfter(k[len(prefix):])
	if !ok {
		return "", 0, false
	}
	return queueURL(authority, v), seq, true
}

// Dequeue removes a queue entry returned by Head, under either key form.
func (t *Tx) Dequeue(authority string, seq uint64) error {
	b := t.b(bucketQueue)
	id, ok, err := t.queueHostID(authority, false)
	if err != nil {
		return fmt.Errorf("dequeue %s/%d: %w", authority, seq, err)
	}
	found := false
	if ok {
		found, err = t.deleteKey(b, queueKeyFor(id, seq))
	}
	if err == nil && !found {
		found, err = t.deleteKey(b, queueKey(authority, seq))
	}
	if err != nil {
		return fmt.Errorf("dequeue %s/%d: %w", authority, seq, err)
	}
	if !found {
		return nil
	}
	t.hostQ[authority]--
	return nil
}

// AddAdmitted counts URLs admitted to a host's queue over the whole crawl,
// for the per-host page budget.
func (t *Tx) AddAdmitted(authority string, n int) { t.hostA[authority] += int64(n) }

// Admitted returns a host's admitted count.
func (t *Tx) Admitted(authority string) int {
	return int(int64(u64(t.get(t.b(bucketHostA), []byte(authority)))) + t.hostA[authority])
}

// ForEachAdmitted calls fn for every host's admitted count.
func (t *Tx) ForEachAdmitted(fn func(authority string, n int) error) error {
	return t.b(bucketHostA).ForEach(func(k, v []byte) error { return fn(string(k), int(u64(v))) })
}

// QueuedHosts calls fn for every host with queued URLs and their count.
func (t *Tx) QueuedHosts(fn func(authority string, n int) error) error {
	return t.b(bucketHostQ).ForEach(func(k, v []byte) error {
		if n := int(u64(v)); n > 0 {
			return fn(string(k), n)
		}
		return nil
	})
}

// ForEachQueued calls fn for every URL in a host's queue, in order: the
// entries under the old key form, then those under the host's id.
func (t *Tx) ForEachQueued(authority string, fn func(seq uint64, url string) error) error {
	prefix := append([]byte(authority), 0)
	c := t.b(bucketQueue).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(u64(k[len(prefix):]), queueURL(authority, v)); err != nil {
			return err
		}
	}
	id, ok, err := t.queueHostID(authority, false)
	if err != nil || !ok {
		return err
	}
	prefix = queueHostPrefix(id)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		seq, ok := queueSeqAfter(k[len(prefix):])
		if !ok {
			return badValue{fmt.Errorf("queue of %q: bad key % x", authority, k)}
		}
		if err := fn(seq, queueURL(authority, v)); err != nil {
			return err
		}
	}
	return nil
}

// queueKey is the old key form, authority 0x00 seq(8), still read.
func queueKey(authority string, seq uint64) []byte {
	k := make([]byte, 0, len(authority)+9)
	k = append(k, authority...)
	k = append(k, 0)
	return append(k, putU64(seq)...)
}
