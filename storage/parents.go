package storage

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Parent URLs are stored once. A page queues all its new links in the
// transaction that records it, each naming the page as its parent: a URL
// of 60 bytes or more, where an id takes one to three. The parents bucket
// gives ids to URLs in the order they first become a parent (bbolt's
// bucket sequence), so it only ever appends; parentids is its reverse.
var (
	bucketParents   = []byte("parents")   // id (8, big-endian) -> parent URL
	bucketParentIDs = []byte("parentids") // parent URL -> id (8, big-endian)
)

// parentCacheMax bounds the ids a Tx remembers it read: an export reads
// millions of records.
const parentCacheMax = 1 << 14

// parentID returns the id of a parent URL, giving it one if it has none.
// A Tx remembers the ids it used or read (see rememberParent), so a page
// with 10,000 links looks its own URL up once.
func (t *Tx) parentID(url string) (uint64, error) {
	if url == "" {
		return 0, nil
	}
	if id, ok := t.parentIDs[url]; ok {
		return id, nil
	}
	ids := t.b(bucketParentIDs)
	id := u64(t.get(ids, []byte(url)))
	if id == 0 {
		parents := t.b(bucketParents)
		var err error
		if id, err = parents.NextSequence(); err != nil {
			return 0, fmt.Errorf("parent id for %q: %w", url, err)
		}
		if err := parents.Put(putU64(id), []byte(url)); err != nil {
			return 0, fmt.Errorf("put parent %q: %w", url, err)
		}
		if err := ids.Put([]byte(url), putU64(id)); err != nil {
			return 0, fmt.Errorf("put parent %q: %w", url, err)
		}
	}
	t.rememberParent(url, id)
	return id, nil
}

// rememberParent caches a parent's id both ways, within parentCacheMax
// each: recording a page rewrites the record read just before, and its
// parent's id is then known without a lookup.
func (t *Tx) rememberParent(url string, id uint64) {
	if len(t.parentIDs) >= parentCacheMax {
		clear(t.parentIDs)
	}
	t.parentIDs[url] = id
	if len(t.parentURLs) >= parentCacheMax {
		clear(t.parentURLs)
	}
	t.parentURLs[id] = url
}

// parentURL resolves a parent id read from a record. An id the parents
// bucket does not hold is damage.
func (t *Tx) parentURL(id uint64) (string, error) {
	if url, ok := t.parentURLs[id]; ok {
		return url, nil
	}
	url, ok := lookupParent(t.tx.Bucket(bucketParents), id, t.get)
	if !ok {
		return "", fmt.Errorf("parent id %d is not in the parents bucket", id)
	}
	t.rememberParent(url, id)
	return url, nil
}

// lookupParent reads an id's URL with get (Bucket.Get, or a Tx's kept
// cursor); b may be nil (a file never written by this version, opened
// read-only).
func lookupParent(b *bolt.Bucket, id uint64, get func(*bolt.Bucket, []byte) []byte) (string, bool) {
	if b == nil || id == 0 {
		return "", false
	}
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], id)
	v := get(b, k[:])
	return string(v), v != nil
}

// encodeURL is the value PutURL stores for r.
func (t *Tx) encodeURL(r *URLRecord) ([]byte, error) {
	id, err := t.parentID(r.Parent)
	if err != nil {
		return nil, err
	}
	return appendRecord(nil, r, id), nil
}

// decodeURL decodes the record stored under key k, resolving its parent.
func (t *Tx) decodeURL(k, v []byte) (*URLRecord, error) {
	r, id, err := decodeRecord(string(k), v)
	if err == nil && id != 0 {
		r.Parent, err = t.parentURL(id)
	}
	if err != nil {
		return nil, badValue{fmt.Errorf("decode record %q: %w", k, err)}
	}
	return &r, nil
}
