package storage

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	bolt "go.etcd.io/bbolt"
)

// Queue keys. The queue bucket held authority 0x00 seq(8): at 10 M queued
// URLs that key (about 25 bytes) was a third of the queue's 81 bytes per
// URL, the host name repeated in every entry. Keys now name the host by a
// small id, allocated once per host, and the sequence number in as few
// bytes as it needs:
//
//	queueKeyV2  uvarint host id  n (1 byte, 1..8)  seq (n bytes, big-endian)
//
// 7 bytes for a host among the first 16,384 and a sequence under 2^24.
// The leading 0x01 never starts a host name (letter, digit or '['), so
// the keys of files written before are told apart and still read: a file
// keeps its old entries until they are dequeued, and its hosts' new
// entries go under the new form (no migration on open, so an open costs
// the same whatever the queue's length). The uvarint id is prefix-free,
// so a host's entries are one key range; n before the sequence keeps the
// range in sequence order (a longer sequence is a larger one).
const queueKeyV2 = 0x01

var (
	bucketQHostIDs = []byte("qhostids") // authority -> uvarint id
	bucketQHosts   = []byte("qhosts")   // uvarint id -> authority
)

// queueHostPrefix is the key prefix of a host id's entries.
func queueHostPrefix(id uint64) []byte {
	return binary.AppendUvarint([]byte{queueKeyV2}, id)
}

// queueKeyFor is the new-form key of an entry.
func queueKeyFor(id, seq uint64) []byte {
	n := max(1, (bits.Len64(seq)+7)/8)
	k := make([]byte, 0, 1+binary.MaxVarintLen64+1+8) // one allocation, not three
	k = binary.AppendUvarint(append(k, queueKeyV2), id)
	k = append(k, byte(n))
	for i := n - 1; i >= 0; i-- {
		k = append(k, byte(seq>>(8*i)))
	}
	return k
}

// queueSeqAfter reads the sequence of a new-form key behind its host
// prefix; ok is false for any other shape (damage), a sequence with a
// leading zero byte included: only the one queueKeyFor writes is read,
// so that a key that parses is in its host's range and order.
func queueSeqAfter(rest []byte) (seq uint64, ok bool) {
	if len(rest) < 2 || int(rest[0]) != len(rest)-1 || rest[0] > 8 || (rest[0] > 1 && rest[1] == 0) {
		return 0, false
	}
	for _, c := range rest[1:] {
		seq = seq<<8 | uint64(c)
	}
	return seq, true
}

// parseQueueKeyV2 splits a new-form key into host id and sequence. The id
// must be in its shortest uvarint form: a longer one (0xf3 0x00 for 115)
// is not in the host's key range, where Head looks.
func parseQueueKeyV2(k []byte) (id, seq uint64, ok bool) {
	if len(k) < 1 || k[0] != queueKeyV2 {
		return 0, 0, false
	}
	id, n := binary.Uvarint(k[1:])
	if n <= 0 || id == 0 || n != len(binary.AppendUvarint(nil, id)) {
		return 0, 0, false
	}
	seq, ok = queueSeqAfter(k[1+n:])
	return id, seq, ok
}

// queueHostID returns a host's queue id; with alloc it allocates one for
// a host that has none, in this transaction (so it lands with the first
// Enqueue or not at all). Without alloc, ok is false for a host that has
// none (no new-form entries). The buckets may be missing in a file opened
// read-only that was written before them.
func (t *Tx) queueHostID(authority string, alloc bool) (id uint64, ok bool, err error) {
	if id, ok := t.qhostIDs[authority]; ok {
		return id, true, nil
	}
	ids := t.tx.Bucket(bucketQHostIDs)
	if ids != nil {
		if v := t.get(ids, []byte(authority)); v != nil {
			if id, err = decodeQueueID(v); err != nil {
				return 0, false, badValue{fmt.Errorf("queue id of host %q: %w", authority, err)}
			}
			t.qhostIDs[authority] = id
			return id, true, nil
		}
	}
	if !alloc {
		return 0, false, nil
	}
	ids, hosts := t.b(bucketQHostIDs), t.b(bucketQHosts)
	if id, err = hosts.NextSequence(); err != nil {
		return 0, false, fmt.Errorf("queue id for host %q: %w", authority, err)
	}
	idb := binary.AppendUvarint(nil, id)
	if err := hosts.Put(idb, []byte(authority)); err != nil {
		return 0, false, fmt.Errorf("put queue id of host %q: %w", authority, err)
	}
	if err := ids.Put([]byte(authority), idb); err != nil {
		return 0, false, fmt.Errorf("put queue id of host %q: %w", authority, err)
	}
	t.qhostIDs[authority] = id
	return id, true, nil
}

// queueKeyHost splits a queue key of either form into its host and
// sequence; hosts is the id -> authority bucket (nil in a file that has
// none). ok is false for a key of another shape or an unknown id.
func queueKeyHost(hosts *bolt.Bucket, k []byte) (authority string, seq uint64, ok bool) {
	if len(k) > 0 && k[0] == queueKeyV2 {
		id, seq, ok := parseQueueKeyV2(k)
		if !ok || hosts == nil {
			return "", 0, false
		}
		a := hosts.Get(binary.AppendUvarint(nil, id))
		if len(a) == 0 {
			return "", 0, false
		}
		return string(a), seq, true
	}
	return queueKeyAuthority(k)
}

// decodeQueueID decodes a value of the qhostids bucket.
func decodeQueueID(v []byte) (uint64, error) {
	id, n := binary.Uvarint(v)
	if n != len(v) || id == 0 {
		return 0, fmt.Errorf("bad queue id % x", v)
	}
	return id, nil
}

// idMatches reports whether v, a qhostids value, is id.
func idMatches(v []byte, id uint64) bool {
	got, err := decodeQueueID(v)
	return err == nil && got == id
}
