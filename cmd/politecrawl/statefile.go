package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// openForReading opens a state file read-only, failing at once (with
// storage.ErrLocked) when a crawl holds it. It never creates the file.
func openForReading(path string) (*storage.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, stateFileError(path, err)
	}
	db, err := storage.OpenReadOnly(path, storage.Options{Timeout: 300 * time.Millisecond})
	if errors.Is(err, storage.ErrLocked) {
		return nil, fmt.Errorf("a crawl is running on %s and holds it locked: %w", path, storage.ErrLocked)
	}
	if err != nil {
		return nil, stateFileError(path, err)
	}
	return db, nil
}

// stateFileError says why the state file at path could not be opened, for
// the commands that read it: a file that is not there, or one the user
// may not read (a crawl run as another user keeps its state folder 0750
// and its files 0600), which "no state file" would misname. Other errors
// come back as they are.
func stateFileError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no state file at %s (has a crawl run there yet?)", path)
	case errors.Is(err, fs.ErrPermission):
		who, where := "the crawl's user or root", ""
		if o, p, mode, ok := nearestOwner(path); ok {
			where = fmt.Sprintf(" (%s is %s's, mode %v)", p, o, mode)
			if o != "root" {
				who = fmt.Sprintf("the crawl's user (%s) or root", o)
			} else {
				who = "root (or the crawl's user)"
			}
		}
		if o, p, _, ok := nearestOwner(path); ok {
			if me, err := user.Current(); err == nil && me.Username == o {
				// Another user would not help: the mode keeps its
				// own owner out.
				return fmt.Errorf("state file %s: permission denied%s, though it is yours: give yourself access (chmod u+rwx %s)", path, where, p)
			}
		}
		return fmt.Errorf("state file %s: permission denied%s: run this command as %s", path, where, who)
	}
	return err
}

// nearestOwner finds the owner of path, or of the nearest folder above it
// that can be looked at: the one whose mode keeps the user out.
func nearestOwner(path string) (owner, at string, mode fs.FileMode, ok bool) {
	for p := path; ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			if owner, ok = fileOwner(fi); ok {
				return owner, p, fi.Mode(), true
			}
			return "", "", 0, false
		}
		if filepath.Dir(p) == p {
			return "", "", 0, false
		}
	}
}
