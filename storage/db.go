package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
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
	allBuckets     = [][]byte{bucketURLs, bucketQueue, bucketHostQ, bucketHostA, bucketHosts, bucketRobots, bucketBodies, bucketMeta, bucketSitemaps, bucketDue, bucketParents, bucketParentIDs, bucketQHostIDs, bucketQHosts}
	keySeq         = []byte("seq")
)

// fillPercent is how full bbolt packs the pages of the buckets whose keys
// only grow: bbolt splits a page at half its size by default, which
// leaves append-only pages half empty for good. BenchmarkQueued10M, 1 M
// URLs on 500 hosts: queue leaves 19,964 pages 93% used (+1,686 branch
// pages) at 1.0 against 37,894 pages 49% used (+518) at bbolt's 0.5;
// the file 297 MB (312 bytes/URL) against 361 MB (379).
var fillPercent = map[string]float64{
	string(bucketQueue):   1.0,
	string(bucketParents): 1.0,
}

// Options tune Open. The zero value waits 1s for the lock, runs the full
// consistency check on files up to DefaultCheckLimit, and keeps a backup.
type Options struct {
	// Timeout is how long to wait for readers' locks before ErrLocked.
	// A file another process has open for writing (a running crawl) is
	// ErrLocked at once, without waiting (on Unix; elsewhere after
	// Timeout).
	Timeout time.Duration
	// NoSync skips fsync on commit: faster, and still safe against a
	// killed process, but not against power loss. For tests and benchmarks.
	NoSync bool
	// FullCheck runs the full consistency check (see Check) on open
	// whatever the file's size.
	FullCheck bool
	// CheckLimit is the size up to which open runs the full check; 0 means
	// DefaultCheckLimit, negative never. Bigger files get the cheap checks
	// (meta pages, file length) and, when opened for writing, the page walk.
	CheckLimit int64
	// NoBackup skips the copy to BackupPath that Close of a writable
	// file otherwise makes.
	NoBackup bool
	// BackupEvery, when positive, also makes that copy this often while a
	// writable file is open (for crawls that run for weeks without a clean
	// stop). Each copy holds a read transaction for as long as it takes.
	BackupEvery time.Duration
	// Now is the clock Check times itself by (default time.Now).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) fullCheck(size int64) bool {
	limit := o.CheckLimit
	if limit == 0 {
		limit = DefaultCheckLimit
	}
	return o.FullCheck || size <= limit
}

// DB is an open state file. Its methods are safe for concurrent use; bbolt
// serialises writers.
//
// A damaged file never crashes the process: every method turns bbolt's
// panics (and faults reading a truncated file) into a *DamagedError, and
// after one, Update refuses to write.
type DB struct {
	bolt     *bolt.DB
	path     string
	opts     Options
	readOnly bool
	damage   atomic.Pointer[DamagedError]
	closed   sync.Once
	closeErr error
	stop     chan struct{} // closed by Close: ends the periodic backups
	backups  sync.WaitGroup
}

// Open opens (creating if needed) the state file for writing. A new file
// is created under a temporary name and renamed into place once
// initialised, so a crash never leaves an empty or half-written file at
// path; an existing empty file is therefore reported as damaged rather than
// silently started afresh. The file is checked first (see Options): a
// damaged one gives a *DamagedError.
func Open(path string, opts Options) (*DB, error) {
	return open(path, opts, false)
}

// OpenReadOnly opens an existing state file for reading only, with the
// same checks as Open except the page walk on files over the check limit.
func OpenReadOnly(path string, opts Options) (*DB, error) {
	return open(path, opts, true)
}

func open(path string, opts Options, readOnly bool) (*DB, error) {
	if !readOnly {
		if err := createIfMissing(path, opts); err != nil {
			return nil, err
		}
	}
	// Look at the file under the shared lock before bbolt trusts it: a
	// read-write bbolt open walks every page in a goroutine of its own,
	// where a damaged page is a crash, not an error.
	b, err := openBolt(path, opts, true)
	if err != nil {
		return nil, err
	}
	if err := precheck(path, b, opts, readOnly); err != nil {
		b.Close()
		return nil, err
	}
	d := &DB{bolt: b, path: path, opts: opts, readOnly: readOnly}
	if readOnly {
		return d, nil
	}
	b.Close()
	if d.bolt, err = openBolt(path, opts, false); err != nil {
		return nil, err
	}
	if err := d.initBuckets(); err != nil {
		d.bolt.Close()
		return nil, err
	}
	d.stop = make(chan struct{})
	if opts.BackupEvery > 0 && !opts.NoBackup {
		d.backups.Go(func() { d.backupLoop(opts.BackupEvery) })
	}
	return d, nil
}

// precheck runs the checks open promises: the cheap ones (meta pages,
// length, freelist page) always; under the size limit, the page walk and
// bbolt's Tx.Check. Over it, the page walk only when bbolt is about to do
// its own: a writable open of a file without a freelist page (written
// before the freelist was synced) makes bbolt walk every page to rebuild
// one, in a goroutine where a damaged page is a crash. That happens once:
// the open writes the freelist.
func precheck(path string, b *bolt.DB, opts Options, readOnly bool) error {
	pf, err := openPageFile(path)
	if err != nil {
		return damaged(path, "%v", err)
	}
	full := opts.fullCheck(pf.size)
	walk := full || (!readOnly && pf.meta.freelist == noFreelist)
	err = pf.checkFreelist()
	pf.Close()
	if err != nil {
		return damaged(path, "%v", err)
	}
	if !walk {
		return nil
	}
	r := &CheckReport{}
	r.check(path, b, full)
	return r.Err(path)
}

func (d *DB) initBuckets() error {
	err := d.guard("init", func() error {
		return d.bolt.Update(func(tx *bolt.Tx) error {
			for _, name := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil && !errors.Is(err, ErrDamaged) {
		return fmt.Errorf("init state %q: %w", d.path, err)
	}
	return err
}

// createIfMissing creates and initialises a new state file under a
// temporary name, then links it into place: never an empty file at path,
// and two processes racing to create it end up with the same file.
func createIfMissing(path string, opts Options) error {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, base+".new-*")
	if err != nil {
		return fmt.Errorf("create state %q: %w", path, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)
	b, err := bolt.Open(tmpPath, 0o600, &bolt.Options{Timeout: time.Second, NoSync: opts.NoSync, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return fmt.Errorf("create state %q: %w", path, err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create state %q: %w", path, err)
	}
	if err := os.Link(tmpPath, path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create state %q: %w", path, err)
	}
	return syncDir(dir)
}

// createTemp is os.CreateTemp whose error names dir, the folder the user
// gave, rather than the temporary name it tried ("open /proc/x.db.new-123:
// no such file or directory" named a file the user never heard of). The
// cause (errors.Is fs.ErrNotExist, fs.ErrPermission) is kept.
func createTemp(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("cannot create a file in %s: %w", filepath.Clean(dir), pe.Err)
	}
	return f, err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Path is the file's path.
func (d *DB) Path() string { return d.path }

// Close closes the file and releases its lock. Closing a writable file
// that showed no damage and is at most BackupAtCloseLimit bytes first
// copies it to BackupPath (unless Options.NoBackup): see Backup. Larger
// files rely on Options.BackupEvery, so that a stop stays quick (a copy
// costs about 5 s per GB). Close is idempotent.
func (d *DB) Close() error {
	d.closed.Do(func() {
		if d.stop != nil {
			close(d.stop)
			d.backups.Wait()
		}
		var errs []error
		if !d.readOnly && !d.opts.NoBackup && d.damage.Load() == nil && d.smallEnoughToBackUpAtClose() {
			errs = append(errs, d.Backup())
		}
		if err := d.bolt.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close state %q: %w", d.path, err))
		}
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}

// Update runs fn in one read-write transaction and commits it, counters
// included, if fn returns nil. After damage was found, it returns that
// *DamagedError and writes nothing.
func (d *DB) Update(fn func(*Tx) error) error {
	if de := d.damage.Load(); de != nil {
		return de
	}
	return d.guard("update", func() error {
		return d.bolt.Update(func(btx *bolt.Tx) error {
			t := newTx(btx)
			if err := fn(t); err != nil {
				return err
			}
			return t.flush()
		})
	})
}

// View runs fn in a read-only transaction.
func (d *DB) View(fn func(*Tx) error) error {
	return d.guard("read", func() error {
		return d.bolt.View(func(btx *bolt.Tx) error {
			return fn(newTx(btx))
		})
	})
}

// guard runs fn with the package's panic guard and remembers damage.
func (d *DB) guard(op string, fn func() error) error {
	err := guard(d.path, op, fn)
	var de *DamagedError
	if errors.Is(err, ErrDamaged) && !errors.As(err, &de) {
		de = damaged(d.path, "%s: %v", op, err)
		err = de
	}
	if de != nil {
		d.damage.CompareAndSwap(nil, de)
	}
	return err
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
