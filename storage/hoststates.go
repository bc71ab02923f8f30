package storage

import "strings"

// bucketHostStates holds, per authority, how many of its URL records are
// in each decided state (StateCounts, encoded as four big-endian uint64s).
// PutURL keeps it, like the global state counters: every state change of
// a URL goes through PutURL, so the per-host figures always sum to the
// totals and to what the export lists. A file written before it existed
// gets it rebuilt, from a scan of the URL records, at its first commit.
var bucketHostStates = []byte("hoststates")

// StateCounts is how many of one host's URL records are in each decided
// state. Queued URLs are the host's queue count (QueuedHosts).
type StateCounts struct {
	Fetched    int `json:"fetched"`
	Disallowed int `json:"disallowed"`
	Failed     int `json:"failed"`
	Skipped    int `json:"skipped"`
}

// stateIndex is a decided state's place in the encoding; -1 for Queued
// and unknown states.
func stateIndex(s State) int {
	switch s {
	case Fetched:
		return 0
	case Disallowed:
		return 1
	case Failed:
		return 2
	case Skipped:
		return 3
	}
	return -1
}

type stateDeltas [4]int64

func (c StateCounts) encode() []byte {
	b := make([]byte, 0, 32)
	for _, n := range []int{c.Fetched, c.Disallowed, c.Failed, c.Skipped} {
		b = append(b, putU64(uint64(max(n, 0)))...)
	}
	return b
}

// decodeStateCounts reads what encode wrote; a short value (damage)
// reads as zeros where it is missing.
func decodeStateCounts(v []byte) StateCounts {
	var n [4]int
	for i := range n {
		if len(v) >= 8*(i+1) {
			n[i] = int(u64(v[8*i : 8*(i+1)]))
		}
	}
	return StateCounts{Fetched: n[0], Disallowed: n[1], Failed: n[2], Skipped: n[3]}
}

// urlAuthority is the host[:port] of a normal URL; "" for anything
// else (an unusable link recorded skipped).
func urlAuthority(url string) string {
	i := strings.Index(url, "://")
	if i < 0 {
		return ""
	}
	s := url[i+3:]
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	return s
}

// countHostState moves one of url's host's records from prev to next.
func (t *Tx) countHostState(url string, prev, next State) {
	i, j := stateIndex(prev), stateIndex(next)
	if i < 0 && j < 0 {
		return
	}
	h := urlAuthority(url)
	if h == "" {
		return // an unusable link (mailto:, a bad URL): no host to count it under
	}
	d := t.hostS[h]
	if i >= 0 {
		d[i]--
	}
	if j >= 0 {
		d[j]++
	}
	t.hostS[h] = d
}

// HostStates returns a host's URL records by decided state, as committed
// plus this transaction's changes.
func (t *Tx) HostStates(authority string) StateCounts {
	var c StateCounts
	if b := t.tx.Bucket(bucketHostStates); b != nil {
		c = decodeStateCounts(b.Get([]byte(authority)))
	}
	return c.add(t.hostS[authority])
}

func (c StateCounts) add(d stateDeltas) StateCounts {
	return StateCounts{Fetched: c.Fetched + int(d[0]), Disallowed: c.Disallowed + int(d[1]),
		Failed: c.Failed + int(d[2]), Skipped: c.Skipped + int(d[3])}
}

// ForEachHostStates calls fn for every host with decided URL records, as
// committed (a file not yet written by a version that keeps them has
// none).
func (t *Tx) ForEachHostStates(fn func(authority string, c StateCounts) error) error {
	b := t.tx.Bucket(bucketHostStates)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error { return fn(string(k), decodeStateCounts(v)) })
}

// flushHostStates writes this transaction's per-host state changes; the
// first commit to a file without the bucket builds it from the URL
// records instead (they include this transaction's changes).
func (t *Tx) flushHostStates() error {
	if len(t.hostS) == 0 && t.tx.Bucket(bucketHostStates) != nil {
		return nil
	}
	if t.tx.Bucket(bucketHostStates) == nil {
		return t.rebuildHostStates()
	}
	b := t.tx.Bucket(bucketHostStates)
	for h, d := range t.hostS {
		c := decodeStateCounts(t.get(b, []byte(h))).add(d)
		var err error
		if c == (StateCounts{}) {
			err = b.Delete([]byte(h))
		} else {
			err = b.Put([]byte(h), c.encode())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rebuildHostStates recounts every host's decided URL records from the
// URL records (a file from before the bucket, or one salvaged), and drops
// the transaction's deltas, which the recount includes.
func (t *Tx) rebuildHostStates() error {
	btx := t.tx
	if btx.Bucket(bucketHostStates) != nil {
		if err := btx.DeleteBucket(bucketHostStates); err != nil {
			return err
		}
	}
	b, err := btx.CreateBucket(bucketHostStates)
	if err != nil {
		return err
	}
	counts := map[string]stateDeltas{}
	if err := btx.Bucket(bucketURLs).ForEach(func(k, v []byte) error {
		r, _, err := decodeRecord(string(k), v)
		if err != nil {
			return nil // counted as nothing; salvage drops it
		}
		if i := stateIndex(r.State); i >= 0 && urlAuthority(r.URL) != "" {
			h := urlAuthority(r.URL)
			d := counts[h]
			d[i]++
			counts[h] = d
		}
		return nil
	}); err != nil {
		return err
	}
	clear(t.hostS)
	for h, d := range counts {
		if err := b.Put([]byte(h), StateCounts{}.add(d).encode()); err != nil {
			return err
		}
	}
	return nil
}
