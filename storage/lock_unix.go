//go:build unix

package storage

import (
	"errors"
	"os"
	"syscall"
)

// heldByWriter reports whether another open holds path's exclusive lock
// (a crawl has it open for writing), by asking for a shared lock without
// waiting. Readers holding shared locks do not count: they are brief, and
// an open waits Options.Timeout for them. Any other failure says false and
// leaves the answer to bbolt's own open.
func heldByWriter(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	return errors.Is(err, syscall.EWOULDBLOCK)
}
