package storage

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Tx is one transaction's view of the state, with the domain operations.
// It is valid only inside the Update or View function that received it.
type Tx struct {
	tx      *bolt.Tx
	counts  map[State]int64        // deltas, flushed on commit
	hostQ   map[string]int64       // queued-per-host deltas
	hostA   map[string]int64       // admitted-per-host deltas
	hostS   map[string]stateDeltas // per-host decided-state deltas (hoststates.go)
	seq     uint64
	seqRead bool
	// parent URL <-> id, as this transaction used them (see parents.go)
	parentIDs  map[string]uint64
	parentURLs map[uint64]string
	qhostIDs   map[string]uint64     // host -> queue id, as used (queuekeys.go)
	hosts      map[string]HostRecord // host records put, written at flush (hostrecords.go)
	cursors    []*bolt.Cursor        // one per bucket read by point (cursors.go)
}

func newTx(tx *bolt.Tx) *Tx {
	return &Tx{tx: tx, counts: map[State]int64{}, hostQ: map[string]int64{}, hostA: map[string]int64{}, hostS: map[string]stateDeltas{},
		parentIDs: map[string]uint64{}, parentURLs: map[uint64]string{}, qhostIDs: map[string]uint64{}}
}

func (t *Tx) b(name []byte) *bolt.Bucket {
	b := t.tx.Bucket(name)
	if b == nil {
		// A damaged file (or a read-only open of one never initialised:
		// callers check Initialised). DB.Update and View recover this
		// into a DamagedError.
		panic(damagePanic{fmt.Sprintf("bucket %q is missing", name)})
	}
	if fill, ok := fillPercent[string(name)]; ok {
		b.FillPercent = fill // bbolt keeps the handle for the transaction
	}
	return b
}

// Initialised reports whether the file has the crawl's buckets (a fresh
// read-only open of an empty file has none).
func (t *Tx) Initialised() bool { return t.tx.Bucket(bucketURLs) != nil }

// GetURL returns the record of a normal URL, or nil if the URL was never seen.
func (t *Tx) GetURL(url string) (*URLRecord, error) {
	k := []byte(url)
	v := t.get(t.b(bucketURLs), k)
	if v == nil {
		return nil, nil
	}
	return t.decodeURL(k, v)
}

// Seen reports whether a URL has a record.
func (t *Tx) Seen(url string) bool {
	return t.get(t.b(bucketURLs), []byte(url)) != nil
}

// PutURL writes a record, keeping the state counters right. prev is the
// state the record had before (empty for a new URL); passing it saves a
// read on the hot path.
func (t *Tx) PutURL(r *URLRecord, prev State) error {
	v, err := t.encodeURL(r)
	if err != nil {
		return fmt.Errorf("encode record %q: %w", r.URL, err)
	}
	if err := t.b(bucketURLs).Put([]byte(r.URL), v); err != nil {
		return fmt.Errorf("put record %q: %w", r.URL, err)
	}
	if prev != r.State {
		if prev != "" {
			t.counts[prev]--
		}
		t.counts[r.State]++
		t.countHostState(r.URL, prev, r.State)
	}
	return nil
}

func (t *Tx) nextSeq() (uint64, error) {
	if !t.seqRead {
		t.seq = u64(t.b(bucketMeta).Get(keySeq))
		t.seqRead = true
	}
	t.seq++
	return t.seq, nil
}

// GetRobots returns an origin's robots.txt record, nil if none.
func (t *Tx) GetRobots(origin string) (*RobotsRecord, error) {
	v := t.b(bucketRobots).Get([]byte(origin))
	if v == nil {
		return nil, nil
	}
	var r RobotsRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, badValue{fmt.Errorf("decode robots %q: %w", origin, err)}
	}
	return &r, nil
}

// PutRobots writes an origin's robots.txt record.
func (t *Tx) PutRobots(origin string, r *RobotsRecord) error {
	return t.putJSON(bucketRobots, origin, r)
}

// ForEachRobots calls fn for every robots.txt record.
func (t *Tx) ForEachRobots(fn func(origin string, r *RobotsRecord) error) error {
	return t.b(bucketRobots).ForEach(func(k, v []byte) error {
		var r RobotsRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return badValue{fmt.Errorf("decode robots %q: %w", k, err)}
		}
		return fn(string(k), &r)
	})
}

// GetSitemap returns a sitemap's record, nil if it was never seen.
func (t *Tx) GetSitemap(url string) (*SitemapRecord, error) {
	v := t.b(bucketSitemaps).Get([]byte(url))
	if v == nil {
		return nil, nil
	}
	var r SitemapRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, badValue{fmt.Errorf("decode sitemap %q: %w", url, err)}
	}
	return &r, nil
}

// PutSitemap writes a sitemap's record.
func (t *Tx) PutSitemap(r *SitemapRecord) error {
	return t.putJSON(bucketSitemaps, r.URL, r)
}

// ForEachSitemap calls fn for every sitemap record.
func (t *Tx) ForEachSitemap(fn func(r *SitemapRecord) error) error {
	b := t.tx.Bucket(bucketSitemaps)
	if b == nil {
		return nil // a file written before sitemaps existed
	}
	return b.ForEach(func(k, v []byte) error {
		var r SitemapRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return badValue{fmt.Errorf("decode sitemap %q: %w", k, err)}
		}
		return fn(&r)
	})
}

// PutBody stores a page body, gzip-compressed when it is long enough to
// gain from it (see CompressBody).
func (t *Tx) PutBody(url string, body []byte) error {
	z, err := CompressBody(body)
	if err != nil {
		return fmt.Errorf("compress body %q: %w", url, err)
	}
	return t.PutCompressedBody(url, z)
}

// PutCompressedBody stores a body already compressed by CompressBody, so
// callers can compress outside the transaction, in parallel.
func (t *Tx) PutCompressedBody(url string, z []byte) error {
	return t.b(bucketBodies).Put([]byte(url), z)
}

var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return zw
}}

// rawBodyMax is the body length below which a body is stored as it is:
// gzip's header, trailer and Huffman tables save little on a few hundred
// bytes, and setting them up cost about 10 us per body, more than the rest
// of recording a page (PostgreSQL's TOAST leaves values under 2 KiB
// uncompressed for the same reason).
const rawBodyMax = 1024

// rawBody marks a body stored as it is, after its CRC-32C (4 bytes, big
// endian) so that damage is found as gzip's own CRC finds it. A gzip
// stream starts with 0x1f, so the first byte tells the two apart, and
// files written before raw bodies existed (all gzip) read as before.
const rawBody = 0x00

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CompressBody encodes a body the way the state file stores it: gzip, or
// for a body under rawBodyMax bytes, the body itself after a rawBody byte
// and its checksum. It is safe for concurrent use.
func CompressBody(body []byte) ([]byte, error) {
	if len(body) < rawBodyMax {
		v := make([]byte, 5, 5+len(body))
		v[0] = rawBody
		binary.BigEndian.PutUint32(v[1:], crc32.Checksum(body, castagnoli))
		return append(v, body...), nil
	}
	var buf bytes.Buffer
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeBody reverses CompressBody.
func decodeBody(v []byte) ([]byte, error) {
	if len(v) > 0 && v[0] == rawBody {
		if len(v) < 5 {
			return nil, errors.New("raw body shorter than its header")
		}
		body := v[5:]
		if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(v[1:]) {
			return nil, errors.New("raw body checksum mismatch")
		}
		return bytes.Clone(body), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(v))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// DeleteBody removes a stored body (a page that became noindex).
func (t *Tx) DeleteBody(url string) error {
	return t.b(bucketBodies).Delete([]byte(url))
}

// Body returns a stored page body, decompressed; nil if none.
func (t *Tx) Body(url string) ([]byte, error) {
	v := t.b(bucketBodies).Get([]byte(url))
	if v == nil {
		return nil, nil
	}
	b, err := decodeBody(v)
	if err != nil {
		return nil, badValue{fmt.Errorf("decompress body %q: %w", url, err)}
	}
	return b, nil
}

// HasBody reports whether a body is stored for url, without reading it.
func (t *Tx) HasBody(url string) bool {
	return t.b(bucketBodies).Get([]byte(url)) != nil
}

// ForEachURL calls fn for every record, in key order.
func (t *Tx) ForEachURL(fn func(r *URLRecord) error) error {
	return t.b(bucketURLs).ForEach(func(k, v []byte) error {
		r, err := t.decodeURL(k, v)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

// Flag reads a named boolean in the meta bucket.
func (t *Tx) Flag(name string) bool {
	v := t.b(bucketMeta).Get([]byte("flag/" + name))
	return len(v) == 1 && v[0] == 1
}

// SetFlag writes a named boolean in the meta bucket.
func (t *Tx) SetFlag(name string, on bool) error {
	v := []byte{0}
	if on {
		v[0] = 1
	}
	return t.b(bucketMeta).Put([]byte("flag/"+name), v)
}

// Setting reads a named string in the meta bucket ("" if never set).
func (t *Tx) Setting(name string) string {
	return string(t.b(bucketMeta).Get([]byte("setting/" + name)))
}

// SetSetting writes a named string in the meta bucket; "" deletes it.
func (t *Tx) SetSetting(name, value string) error {
	if value == "" {
		return t.b(bucketMeta).Delete([]byte("setting/" + name))
	}
	return t.b(bucketMeta).Put([]byte("setting/"+name), []byte(value))
}

// Counts returns the number of URLs in each state.
func (t *Tx) Counts() map[State]int {
	out := map[State]int{}
	m := t.b(bucketMeta)
	for _, s := range States {
		out[s] = int(u64(m.Get(countKey(s))) + uint64(t.counts[s]))
	}
	return out
}

func countKey(s State) []byte { return []byte("count/" + string(s)) }

func (t *Tx) putJSON(bucket []byte, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", bucket, key, err)
	}
	if err := t.b(bucket).Put([]byte(key), b); err != nil {
		return fmt.Errorf("put %s %q: %w", bucket, key, err)
	}
	return nil
}

// flush writes the counter deltas and sequence number.
func (t *Tx) flush() error {
	if err := t.flushHosts(); err != nil {
		return err
	}
	m := t.b(bucketMeta)
	for s, d := range t.counts {
		if d == 0 {
			continue
		}
		n := int64(u64(m.Get(countKey(s)))) + d
		if err := m.Put(countKey(s), putU64(uint64(max(n, 0)))); err != nil {
			return err
		}
	}
	if err := t.flushHostCounts(t.b(bucketHostA), t.hostA); err != nil {
		return err
	}
	if err := t.flushHostCounts(t.b(bucketHostQ), t.hostQ); err != nil {
		return err
	}
	if err := t.flushHostStates(); err != nil {
		return err
	}
	if t.seqRead {
		return m.Put(keySeq, putU64(t.seq))
	}
	return nil
}

func (t *Tx) flushHostCounts(hq *bolt.Bucket, deltas map[string]int64) error {
	for h, d := range deltas {
		if d == 0 {
			continue
		}
		n := int64(u64(t.get(hq, []byte(h)))) + d
		var err error
		if n <= 0 {
			err = hq.Delete([]byte(h))
		} else {
			err = hq.Put([]byte(h), putU64(uint64(n)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
