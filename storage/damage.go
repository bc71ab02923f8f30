package storage

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// ErrDamaged: the state file is not a consistent bbolt file (truncated,
// garbled, empty, or not a state file at all). Errors that wrap it are
// *DamagedError values, which say what was found and where the last good
// copy is.
var ErrDamaged = errors.New("state file is damaged")

// DamagedError describes a damaged state file. errors.Is(err, ErrDamaged)
// is true for it.
type DamagedError struct {
	Path string // the state file
	What string // what is wrong, for a human
	// Backup is the last good copy (Path + ".bak") and BackupAt its
	// modification time; Backup is "" when there is none.
	Backup   string
	BackupAt time.Time
	// BackupDamaged says what is wrong with BackupPath(Path) when it
	// exists but fails the cheap checks itself.
	BackupDamaged string
	// Empty is a file of 0 bytes: nothing in it to check or salvage.
	Empty bool
}

func (e *DamagedError) Error() string {
	var good string
	switch {
	case e.Backup != "":
		good = fmt.Sprintf("the last good copy is %s (saved %s)", e.Backup, e.BackupAt.UTC().Format(time.RFC3339))
	case e.BackupDamaged != "":
		good = fmt.Sprintf("its backup %s is damaged too: %s", BackupPath(e.Path), e.BackupDamaged)
	default:
		good = fmt.Sprintf("there is no backup copy to restore (no %s)", BackupPath(e.Path))
	}
	return fmt.Sprintf("state file %s is damaged: %s; %s", e.Path, e.What, good)
}

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// BackupPath is where Close keeps the last good copy of the state file at
// path.
func BackupPath(path string) string { return path + ".bak" }

// damaged builds the DamagedError for path, looking up its backup.
func damaged(path, format string, args ...any) *DamagedError {
	e := &DamagedError{Path: path, What: fmt.Sprintf(format, args...)}
	fi, err := os.Stat(BackupPath(path))
	if err != nil || !fi.Mode().IsRegular() {
		return e
	}
	// The cheap checks only: a copy someone made of the damaged file is
	// no good copy.
	pf, err := openPageFile(BackupPath(path))
	if err != nil {
		e.BackupDamaged = err.Error()
		return e
	}
	pf.Close()
	e.Backup, e.BackupAt = BackupPath(path), fi.ModTime()
	return e
}

// damagePanic is what this package panics with when a file turns out to
// be damaged deep inside a Tx method that has no error result (a missing
// bucket); guard turns it back into a DamagedError.
type damagePanic struct{ what string }

// guard runs fn, turning a panic that comes from a damaged file into a
// DamagedError for path: bbolt panics on pages that fail its assertions,
// and reading a page past the end of a truncated file faults, which
// SetPanicOnFault turns into a panic for the duration. Panics that do not
// come from the file (a bug in fn) are not swallowed: they continue.
func guard(path, op string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		what, ok := damageOf(r)
		if !ok {
			panic(r)
		}
		err = damaged(path, "%s: %s", op, what)
	}()
	return fn()
}

// damageOf says whether a recovered panic value comes from a damaged file
// and, if so, describes it.
func damageOf(r any) (string, bool) {
	if p, ok := r.(damagePanic); ok {
		return p.what, true
	}
	if f, ok := r.(interface{ Addr() uintptr }); ok && f.Addr() >= 4096 {
		// A fault at a real address: the only memory we read that can
		// fault is the file's mmap, past the end of a truncated file.
		return fmt.Sprintf("memory fault reading the file at %#x (truncated?)", f.Addr()), true
	}
	if fromBolt() {
		return fmt.Sprint(r), true
	}
	return "", false
}

// fromBolt reports whether the panic being recovered was raised inside
// bbolt. Called from a deferred function, the stack still holds the
// panicking frames: the first frame after runtime.gopanic (and the
// runtime's fault and bounds-check helpers) is where it happened.
func fromBolt() bool {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	seenPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			seenPanic = true
		case seenPanic && !strings.HasPrefix(f.Function, "runtime."):
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}

// badValue is a stored value that does not decode: the file is damaged
// (a garbled data page keeps its structure, so only the value shows it).
type badValue struct{ err error }

func (e badValue) Error() string        { return e.err.Error() }
func (e badValue) Unwrap() error        { return e.err }
func (e badValue) Is(target error) bool { return target == ErrDamaged }
