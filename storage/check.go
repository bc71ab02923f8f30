package storage

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultCheckLimit is the file size up to which open runs the full
// consistency check (the page walk, then bbolt's Tx.Check) when
// Options.CheckLimit is 0. Measured on 2 shared, busy cores with the file
// in the page cache: 50 MB, walk 0.08 s and walk plus Tx.Check 0.10 s;
// 500 MB, 0.9 s and 2.0 s. bbolt's own read-write open of the same files,
// which walks every page to rebuild its freelist when none was synced
// (files written before it was), took 0.09 s and 2.7 s. Up to 256 MB the
// full check adds at most about a second to a start; over it, a writable
// open costs the same whatever the file's size.
const DefaultCheckLimit = 256 << 20

// maxProblems bounds how many problems a check lists.
const maxProblems = 20

// CheckReport is what Check found.
type CheckReport struct {
	Size     int64
	PageSize int
	Pages    int // pages reached from the root
	Buckets  int
	Keys     int
	Notes    []string // oddities that lose nothing
	Problems []string // damage; empty when the file is healthy
	Took     time.Duration
	empty    bool // the file is 0 bytes (Err's DamagedError.Empty)
}

// Check runs the consistency check on the state file at path: the meta
// pages and file length, a walk of every page read with bounds checks, then
// (with opts.FullCheck, or up to opts.CheckLimit) bbolt's own Tx.Check. It
// takes a shared lock like OpenReadOnly. The
// error is nil when the check could run (damage is in the report's
// Problems); it is ErrLocked while a crawl holds the file.
func Check(path string, opts Options) (*CheckReport, error) {
	start := opts.now()
	r := &CheckReport{}
	err := withReadLock(path, opts, func(b *bolt.DB) error {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		r.check(path, b, opts.fullCheck(fi.Size()))
		return nil
	})
	r.Took = opts.now().Sub(start)
	var de *DamagedError
	if errors.As(err, &de) {
		r.Problems = append(r.Problems, de.What)
		r.empty = de.Empty
		return r, nil
	}
	return r, err
}

// Err is the report as a DamagedError, nil when there are no problems.
func (r *CheckReport) Err(path string) error {
	if len(r.Problems) == 0 {
		return nil
	}
	what := strings.Join(r.Problems, "; ")
	if len(r.Problems) > 1 {
		what = fmt.Sprintf("%d problems: %s", len(r.Problems), what)
	}
	e := damaged(path, "%s", what)
	e.Empty = r.empty
	return e
}

// check fills the report: meta pages, length and page walk, then, if deep
// and the walk found nothing, bbolt's Tx.Check.
func (r *CheckReport) check(path string, b *bolt.DB, deep bool) {
	pf, err := openPageFile(path)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return
	}
	defer pf.Close()
	r.Size, r.PageSize, r.Notes = pf.size, int(pf.meta.pageSize), pf.notes
	w := &walker{pf: pf, bucket: func([][]byte) { r.Buckets++ }, damage: func(bucket [][]byte, err error) {
		r.problem("%s%v", bucketPrefix(bucket), err)
	}}
	w.walkRoot()
	r.Pages, r.Keys = w.pages, w.keys
	if len(r.Problems) > 0 || !deep {
		// bbolt's check would read the same broken pages, in a goroutine
		// where a fault cannot be recovered.
		return
	}
	err = guard(path, "check", func() error {
		return b.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				r.problem("bbolt check: %v", err)
			}
			return nil
		})
	})
	if err != nil {
		r.problem("%v", err.(*DamagedError).What)
	}
}

func (r *CheckReport) problem(format string, args ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	} else if len(r.Problems) == maxProblems {
		r.Problems = append(r.Problems, "more problems not listed")
	}
}

func bucketPrefix(bucket [][]byte) string {
	if len(bucket) == 0 {
		return ""
	}
	parts := make([]string, len(bucket))
	for i, b := range bucket {
		parts[i] = fmt.Sprintf("%q", b)
	}
	return "bucket " + strings.Join(parts, "/") + ": "
}

// withReadLock opens path read-only through bbolt, which takes the shared
// file lock (so no crawl writes while we look), and runs fn. The file is
// first checked to be non-empty: bbolt "initialises" an empty file even
// when opened read-only, and fails with "bad file descriptor".
func withReadLock(path string, opts Options, fn func(*bolt.DB) error) error {
	b, err := openBolt(path, opts, true)
	if err != nil {
		return err
	}
	defer b.Close()
	return fn(b)
}

// openBolt opens path with bbolt, mapping its errors: a lock held by a
// writer (at once) or the lock timeout (readers for that long) to
// ErrLocked, and an empty, short or meta-less file to a DamagedError.
func openBolt(path string, opts Options, readOnly bool) (*bolt.DB, error) {
	fi, err := os.Stat(path)
	if err != nil && !(errors.Is(err, os.ErrNotExist) && !readOnly) {
		return nil, fmt.Errorf("open state %q: %w", path, err)
	}
	if err == nil && fi.Size() == 0 {
		e := damaged(path, "%v: no transaction was ever written to it, or it was truncated; "+
			"politecrawl never leaves an empty file, so remove it to start a new crawl", errEmpty)
		e.Empty = true
		return nil, e
	}
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	if heldByWriter(path) {
		// A crawl holds it, for as long as it runs: waiting for the
		// timeout only delayed the same answer.
		return nil, fmt.Errorf("open state %q: %w", path, ErrLocked)
	}
	var b *bolt.DB
	var file *os.File
	err = guard(path, "open", func() error {
		var err error
		b, err = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:  opts.Timeout,
			ReadOnly: readOnly,
			NoSync:   opts.NoSync,
			// A synced freelist: without one, every writable open walks
			// every page to rebuild it (2.7 s and the whole file in RSS at
			// 500 MB). The map type keeps commits cheap with many free pages.
			FreelistType: bolt.FreelistMapType,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, perm)
				file = f
				return f, err
			},
		})
		return err
	})
	if b == nil && file != nil && err != nil {
		// bbolt panicked half-way through: release its file and lock.
		file.Close()
	}
	var de *DamagedError
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("open state %q: %w", path, ErrLocked)
	case errors.As(err, &de):
		return nil, de
	case isBoltFormatError(err):
		// bbolt's own words say little ("invalid database"); ours say why.
		pf, perr := openPageFile(path)
		if perr != nil {
			return nil, damaged(path, "%v", perr)
		}
		pf.Close()
		return nil, damaged(path, "%v", err)
	}
	return nil, fmt.Errorf("open state %q: %w", path, err)
}

func isBoltFormatError(err error) bool {
	return errors.Is(err, bolt.ErrInvalid) || errors.Is(err, bolt.ErrChecksum) ||
		errors.Is(err, bolt.ErrVersionMismatch) || strings.Contains(err.Error(), "file size too small")
}
