package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Backup copies the state file, as of one read transaction, to
// BackupPath(Path()): the "last good copy" a DamagedError points to. The
// copy is written under a temporary name, synced and checked (the page walk,
// and bbolt's Tx.Check under the check limit) before it replaces the
// previous backup, so a failed or damaged copy never replaces a good one.
// It costs a sequential copy of the file; Close calls it for writable files.
func (d *DB) Backup() error {
	dst := BackupPath(d.path)
	dir, base := filepath.Split(dst)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, base+".new-*")
	if err != nil {
		return fmt.Errorf("backup state %q: %w", d.path, err)
	}
	defer os.Remove(tmp.Name())
	err = d.guard("backup", func() error {
		return d.bolt.View(func(tx *bolt.Tx) error {
			_, err := tx.WriteTo(tmp)
			return err
		})
	})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, ErrDamaged) {
		return err
	}
	if err != nil {
		return fmt.Errorf("backup state %q: %w", d.path, err)
	}
	r, err := Check(tmp.Name(), Options{CheckLimit: d.opts.CheckLimit, FullCheck: d.opts.FullCheck})
	if err != nil {
		return fmt.Errorf("backup state %q: check the copy: %w", d.path, err)
	}
	if len(r.Problems) > 0 {
		err := damaged(d.path, "its copy for the backup fails the check: %v", r.Err(d.path).(*DamagedError).What)
		d.damage.CompareAndSwap(nil, err)
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("backup state %q: %w", d.path, err)
	}
	return syncDir(dir)
}

// backupLoop makes a backup every interval until Close. A failed copy is
// not fatal (Close makes one more and reports its error); a copy that shows
// the file damaged stops writes, like any damage found.
func (d *DB) backupLoop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			if d.damage.Load() != nil {
				return
			}
			d.Backup()
		}
	}
}

// BackupAtCloseLimit is the largest file Close backs up.
const BackupAtCloseLimit = 256 << 20

func (d *DB) smallEnoughToBackUpAtClose() bool {
	fi, err := os.Stat(d.path)
	return err == nil && fi.Size() <= BackupAtCloseLimit
}
