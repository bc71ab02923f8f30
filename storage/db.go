package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Sentinel errors.
var (
	// ErrLocked: another process (a running crawl) holds the state file.
	ErrLocked = errors.New("state db is in use by a running crawl")
)

var (
	bucketURLs     = []byte("urls")
	bucketQueue    = []byte("queue")
	bucketHostQ    = []byte("hostq")
	bucketHostA    = []byte("hosta")
	bucketHosts    = []byte("hosts")
	bucketRobots   = []byte("robots")
	bucketBodies   = []byte("bodies")
	bucketMeta     = []byte("meta")
	bucketSitemaps = []byte("sitemaps")
	bucketDue      = []byte("due")
	allBuckets     = [][]byte{bucketURLs, bucketQueue, bucketHostQ, bucketHostA, bucketHosts, bucketRobots, bucketBodies, bucketMeta, bucketSitemaps, bucketDue}
	keySeq         = []byte("seq")
)

// Options tune Open. The zero value waits 1s for the lock.
type Options struct {
	// Timeout is how long to wait for the file lock before ErrLocked.
	Timeout time.Duration
	// NoSync skips fsync on commit: faster, and still safe against a
	// killed process, but not against power loss. For tests and benchmarks.
	NoSync bool
}

// DB is an open state file. Its methods are safe for concurrent use; bbolt
// serialises writers.
type DB struct {
	bolt *bolt.DB
	path string
}

// Open opens (creating if needed) the state file for writing.
func Open(path string, opts Options) (*DB, error) {
	return open(path, opts, false)
}

// OpenReadOnly opens an existing state file for reading only.
func OpenReadOnly(path string, opts Options) (*DB, error) {
	return open(path, opts, true)
}

func open(path string, opts Options, readOnly bool) (*DB, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        opts.Timeout,
		ReadOnly:       readOnly,
		NoSync:         opts.NoSync,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
	})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open state %q: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open state %q: %w", path, err)
	}
	d := &DB{bolt: b, path: path}
	if !readOnly {
		err = b.Update(func(tx *bolt.Tx) error {
			for _, name := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("init state %q: %w", path, err)
		}
	}
	return d, nil
}

// Path is the file's path.
func (d *DB) Path() string { return d.path }

// Close closes the file and releases its lock.
func (d *DB) Close() error {
	if err := d.bolt.Close(); err != nil {
		return fmt.Errorf("close state %q: %w", d.path, err)
	}
	return nil
}

// Update runs fn in one read-write transaction and commits it, counters
// included, if fn returns nil.
func (d *DB) Update(fn func(*Tx) error) error {
	return d.bolt.Update(func(btx *bolt.Tx) error {
		t := newTx(btx)
		if err := fn(t); err != nil {
			return err
		}
		return t.flush()
	})
}

// View runs fn in a read-only transaction.
func (d *DB) View(fn func(*Tx) error) error {
	return d.bolt.View(func(btx *bolt.Tx) error {
		return fn(newTx(btx))
	})
}

func u64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func putU64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}
