package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustStateFile builds a closed, healthy state file with n URLs spread over
// a few hosts: records, queue entries, host records, robots.txt records
// and bodies, enough for branch pages in the big buckets.
func mustStateFile(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	d, err := Open(path, Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Update(func(tx *Tx) error {
		for i := range n {
			host := fmt.Sprintf("h%d.test", i%5)
			u := fmt.Sprintf("http://%s/page/%06d", host, i)
			r := &URLRecord{URL: u, State: Fetched, Status: 200, Title: strings.Repeat("t", 100), DiscoveredVia: "link"}
			if i%3 == 0 {
				r.State = Queued
				if err := tx.Enqueue(host, u); err != nil {
					return err
				}
			} else if err := tx.PutBody(u, []byte(strings.Repeat("body ", 50))); err != nil {
				return err
			}
			if err := tx.PutURL(r, ""); err != nil {
				return err
			}
		}
		for i := range 5 {
			host := fmt.Sprintf("h%d.test", i)
			if err := tx.PutHost(host, HostRecord{Interval: 1, Pages: n / 5}); err != nil {
				return err
			}
			if err := tx.PutRobots("http://"+host, &RobotsRecord{Outcome: "parsed", Body: []byte("User-agent: *\n")}); err != nil {
				return err
			}
			tx.AddAdmitted(host, n/5)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A last, small transaction: a file whose newest meta page is lost
	// falls back to the one before, which then still has every record.
	if err := d.Update(func(tx *Tx) error { return tx.SetFlag("test", true) }); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// pagesOf lists the reachable pages of a healthy file by kind.
func pagesOf(t testing.TB, path string) (pageSize int64, branches, leaves []uint64) {
	t.Helper()
	pf, err := openPageFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	w := &walker{pf: pf, damage: func(b [][]byte, err error) { t.Fatalf("healthy file: %s%v", bucketPrefix(b), err) }}
	w.walkRoot()
	for id := uint64(2); id < pf.meta.pgid; id++ {
		if !w.seen[id] {
			continue
		}
		b, err := pf.page(id)
		if err != nil {
			continue // an overflow page
		}
		switch le.Uint16(b[8:]) {
		case flagBranch:
			branches = append(branches, id)
		case flagLeaf:
			leaves = append(leaves, id)
		}
	}
	return int64(pf.meta.pageSize), branches, leaves
}

func overwrite(t testing.TB, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func garbage(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// readAll opens path and reads everything a crawl, status and export read.
func readAll(path string, readOnly bool) (n int, err error) {
	open := Open
	if readOnly {
		open = OpenReadOnly
	}
	d, err := open(path, Options{NoSync: true, NoBackup: true})
	if err != nil {
		return 0, err
	}
	defer d.Close()
	err = d.View(func(tx *Tx) error {
		if !tx.Initialised() {
			return nil
		}
		tx.Counts()
		if err := tx.ForEachURL(func(r *URLRecord) error {
			n++
			_, err := tx.Body(r.URL)
			return err
		}); err != nil {
			return err
		}
		if err := tx.ForEachHost(func(string, HostRecord) error { return nil }); err != nil {
			return err
		}
		if err := tx.ForEachRobots(func(string, *RobotsRecord) error { return nil }); err != nil {
			return err
		}
		return tx.QueuedHosts(func(h string, _ int) error {
			return tx.ForEachQueued(h, func(uint64, string) error { return nil })
		})
	})
	if err != nil || readOnly {
		return n, err
	}
	return n, d.Update(func(tx *Tx) error {
		return tx.PutURL(&URLRecord{URL: "http://new.test/", State: Queued}, "")
	})
}

func TestDamagedFiles(t *testing.T) {
	base := mustStateFile(t, 2000)
	healthy, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	ps, branches, leaves := pagesOf(t, base)
	if len(branches) == 0 || len(leaves) < 10 {
		t.Fatalf("test file too small: %d branch, %d leaf pages", len(branches), len(leaves))
	}
	size := int64(len(healthy))
	// Byte offsets of the high-water mark: truncating below it loses pages.
	pf, _ := openPageFile(base)
	hwm := int64(pf.meta.pgid) * ps
	pf.Close()

	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string // in the error; "" means the file must stay usable
	}{
		{"healthy", func(*testing.T, string) {}, ""},
		{"empty", func(t *testing.T, p string) { os.Truncate(p, 0) }, "empty (0 bytes)"},
		{"truncated to 100 bytes", func(t *testing.T, p string) { os.Truncate(p, 100) }, "is damaged"},
		{"truncated to one page", func(t *testing.T, p string) { os.Truncate(p, ps) }, "is damaged"},
		{"truncated to three pages", func(t *testing.T, p string) { os.Truncate(p, 3*ps) }, "truncated"},
		{"truncated in the middle", func(t *testing.T, p string) { os.Truncate(p, hwm/2+123) }, "truncated"},
		{"truncated by one byte below the high-water mark", func(t *testing.T, p string) { os.Truncate(p, hwm-1) }, "truncated"},
		{"truncated at the high-water mark", func(t *testing.T, p string) { os.Truncate(p, hwm) }, ""},
		{"meta page 0 garbled", func(t *testing.T, p string) { overwrite(t, p, 16, garbage(64, 1)) }, ""},
		{"meta page 1 garbled", func(t *testing.T, p string) { overwrite(t, p, ps+16, garbage(64, 2)) }, ""},
		{"both meta pages garbled", func(t *testing.T, p string) {
			overwrite(t, p, 16, garbage(64, 1))
			overwrite(t, p, ps+16, garbage(64, 2))
		}, "both meta pages are invalid"},
		{"branch page garbled", func(t *testing.T, p string) { overwrite(t, p, int64(branches[0])*ps+16, garbage(200, 3)) }, "is damaged"},
		{"branch page header garbled", func(t *testing.T, p string) { overwrite(t, p, int64(branches[0])*ps, garbage(16, 4)) }, "is damaged"},
		{"leaf page elements garbled", func(t *testing.T, p string) {
			overwrite(t, p, int64(leaves[len(leaves)/2])*ps+16, garbage(64, 5))
		}, "is damaged"},
		{"leaf page values garbled", func(t *testing.T, p string) {
			id := leaves[len(leaves)/2]
			count := int64(le.Uint16(healthy[int64(id)*ps+10:]))
			overwrite(t, p, int64(id)*ps+16+count*16+40, garbage(200, 6))
		}, "is damaged"},
		{"every data page zeroed", func(t *testing.T, p string) { overwrite(t, p, 2*ps, make([]byte, size-2*ps)) }, "is damaged"},
		{"random garbage", func(t *testing.T, p string) { os.WriteFile(p, garbage(64<<10, 7), 0o600) }, "not a bbolt file"},
		{"a text file", func(t *testing.T, p string) { os.WriteFile(p, []byte("seeds:\n  - https://example.org/\n"), 0o600) }, "not a bbolt file"},
	} {
		for _, readOnly := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/readonly=%v", tc.name, readOnly), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "state.db")
				if err := os.WriteFile(path, healthy, 0o600); err != nil {
					t.Fatal(err)
				}
				tc.damage(t, path)
				n, err := readAll(path, readOnly)
				if tc.want == "" {
					if err != nil {
						t.Fatalf("want a usable file, got %v", err)
					}
					if n != 2000 {
						t.Errorf("read %d records, want 2000", n)
					}
					return
				}
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("error %v, want ErrDamaged", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "state file "+path+" is damaged: ") ||
					!strings.Contains(msg, "; there is no backup copy to restore (no "+BackupPath(path)+")") {
					t.Errorf("error %q, want it to say %q, the path and the backup", msg, tc.want)
				}
			})
		}
	}
}

func TestDamagedErrorNamesTheBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	d, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Update(func(tx *Tx) error { return tx.PutURL(&URLRecord{URL: "http://a.test/", State: Queued}, "") })
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := readAll(BackupPath(path), true); err != nil || n != 1 {
		t.Fatalf("backup after Close: %d records, %v", n, err)
	}
	os.Truncate(path, 5000)
	_, err = readAll(path, true)
	if err == nil || !strings.Contains(err.Error(), "the last good copy is "+BackupPath(path)+" (saved ") {
		t.Errorf("with a good backup: %v", err)
	}
	os.Truncate(BackupPath(path), 5000)
	_, err = readAll(path, true)
	if err == nil || !strings.Contains(err.Error(), "; its backup "+BackupPath(path)+" is damaged too: truncated") {
		t.Errorf("with a damaged backup: %v", err)
	}
}

// A file truncated while open (or one too big for the open checks) makes
// bbolt read its mmap past the end of the file: a SIGBUS, which the guard
// turns into ErrDamaged instead of a crash.
func TestTruncatedWhileOpenIsAnError(t *testing.T) {
	path := mustStateFile(t, 300)
	d, err := OpenReadOnly(path, Options{CheckLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	os.Truncate(path, 3*4096)
	err = d.View(func(tx *Tx) error {
		return tx.ForEachURL(func(*URLRecord) error { return nil })
	})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "memory fault") {
		t.Fatalf("error %v, want ErrDamaged for a memory fault", err)
	}
}

// A panic that does not come from the file is a bug: it is not disguised
// as damage.
func TestGuardLetsBugsPanic(t *testing.T) {
	d := mustOpen(t)
	defer func() {
		if r := recover(); r != "a bug" {
			t.Errorf("recovered %v, want the callback's own panic", r)
		}
	}()
	d.View(func(*Tx) error { panic("a bug") })
	t.Error("View returned")
}

// TestEmptyFileSaysSo: an empty state file's error says there is no
// backup in words (it said "the last good copy is none (no ....bak)"),
// and is marked Empty, for the CLI not to suggest salvaging it.
func TestEmptyFileSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	os.WriteFile(path, nil, 0o600)
	_, err := Open(path, Options{})
	var de *DamagedError
	if !errors.As(err, &de) || !de.Empty || !strings.HasSuffix(err.Error(), "; there is no backup copy to restore (no "+BackupPath(path)+")") {
		t.Errorf("Open of an empty file: %v", err)
	}
	r, err := Check(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.As(r.Err(path), &de) || !de.Empty {
		t.Errorf("Check of an empty file: %v, want a DamagedError marked Empty", r.Err(path))
	}
}
