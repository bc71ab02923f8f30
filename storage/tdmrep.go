package storage

import (
	"encoding/json"
	"fmt"
	"time"
)

// bucketTDMRep holds each origin's /.well-known/tdmrep.json as last
// fetched: origin -> TDMRepRecord (JSON). Created on first use, so state
// files from before it open, read-only too, and work unchanged (an
// origin without a record is asked for its file, as before).
var bucketTDMRep = []byte("tdmrep")

// TDMRepRecord is the last answer an origin gave for its tdmrep.json: the
// file read whole (Body, a 2xx answer), or the status that said there was
// none. Answers the server may get over (429, 5xx, network errors) are
// not recorded. The crawl uses it until ExpiresAt, then asks again.
type TDMRepRecord struct {
	FetchedAt time.Time `json:"fetched_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Status    int       `json:"status,omitempty"`
	Body      []byte    `json:"body,omitempty"`
	Error     string    `json:"error,omitempty"` // why the answer says nothing (broken, truncated)
}

// GetTDMRep returns an origin's tdmrep.json record, nil if none.
func (t *Tx) GetTDMRep(origin string) (*TDMRepRecord, error) {
	b := t.tx.Bucket(bucketTDMRep)
	if b == nil {
		return nil, nil
	}
	v := b.Get([]byte(origin))
	if v == nil {
		return nil, nil
	}
	var r TDMRepRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, badValue{fmt.Errorf("decode tdmrep %q: %w", origin, err)}
	}
	return &r, nil
}

// PutTDMRep writes an origin's tdmrep.json record.
func (t *Tx) PutTDMRep(origin string, r *TDMRepRecord) error {
	if _, err := t.tx.CreateBucketIfNotExists(bucketTDMRep); err != nil {
		return fmt.Errorf("tdmrep bucket: %w", err)
	}
	return t.putJSON(bucketTDMRep, origin, r)
}

// ForEachTDMRep calls fn for every tdmrep.json record.
func (t *Tx) ForEachTDMRep(fn func(origin string, r *TDMRepRecord) error) error {
	b := t.tx.Bucket(bucketTDMRep)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		var r TDMRepRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return badValue{fmt.Errorf("decode tdmrep %q: %w", k, err)}
		}
		return fn(string(k), &r)
	})
}
