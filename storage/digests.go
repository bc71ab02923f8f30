package storage

import (
	"encoding/json"
	"fmt"
	"time"
)

// bucketDigests holds the WARC digest index: payload digest -> the first
// capture archived with it. Created on first use, so state files from
// before WARC output open unchanged.
var bucketDigests = []byte("digests")

// DigestRecord is the first archived capture of a payload, what a WARC
// revisit record refers to.
type DigestRecord struct {
	URI      string    `json:"uri"`
	Date     time.Time `json:"date"`
	RecordID string    `json:"record_id"`
}

// PutDigest records the first capture of a payload digest; a digest
// already present keeps its first capture.
func (t *Tx) PutDigest(digest string, r DigestRecord) error {
	b, err := t.tx.CreateBucketIfNotExists(bucketDigests)
	if err != nil {
		return fmt.Errorf("digest index: %w", err)
	}
	if b.Get([]byte(digest)) != nil {
		return nil
	}
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode digest %q: %w", digest, err)
	}
	return b.Put([]byte(digest), v)
}

// ForEachDigest calls fn for every entry of the digest index.
func (t *Tx) ForEachDigest(fn func(digest string, r DigestRecord) error) error {
	b := t.tx.Bucket(bucketDigests)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		var r DigestRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return badValue{fmt.Errorf("decode digest %q: %w", k, err)}
		}
		return fn(string(k), r)
	})
}
