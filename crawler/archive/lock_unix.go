//go:build unix

package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on dir for the Writer's lifetime, so
// that a second crawl writing to the same directory cannot "recover" (cut
// and rename) the file the first is writing.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock WARC dir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("WARC dir %q: %w", dir, ErrDirInUse)
		}
		return nil, fmt.Errorf("lock WARC dir: %w", err)
	}
	return f, nil
}
