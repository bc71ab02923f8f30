package storage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestMeasureCheck times the checks on a big file. It runs only with
// POLITECRAWL_MEASURE_MB set (the file size to build, in MB).
func TestMeasureCheck(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("POLITECRAWL_MEASURE_MB"))
	if mb <= 0 {
		t.Skip("set POLITECRAWL_MEASURE_MB")
	}
	dir := os.Getenv("POLITECRAWL_MEASURE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("measure-%d.db", mb))
	if _, err := os.Stat(path); err != nil {
		d, err := Open(path, Options{NoSync: true, NoBackup: true})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		body := make([]byte, 6000)
		for i := 0; ; i++ {
			fi, _ := os.Stat(path)
			if fi.Size() >= int64(mb)<<20 {
				break
			}
			err := d.Update(func(tx *Tx) error {
				for j := range 2000 {
					u := fmt.Sprintf("http://h%d.test/p/%d/%d", rng.IntN(50), i, j)
					for k := range body {
						body[k] = "abcdefghij <>/\n"[rng.IntN(15)]
					}
					if err := tx.PutBody(u, body); err != nil {
						return err
					}
					if err := tx.PutURL(&URLRecord{URL: u, State: Fetched, Status: 200, Title: "a title", Links: []string{u + "/a", u + "/b"}}, ""); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		d.opts.NoBackup = true
		d.Close()
	}
	fi, _ := os.Stat(path)
	t.Logf("file %d MB", fi.Size()>>20)
	pf, err := openPageFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w := &walker{pf: pf, damage: func(b [][]byte, err error) { t.Error(err) }}
	w.walkRoot()
	t.Logf("page walk: %v (%d pages, %d keys)", time.Since(start), w.pages, w.keys)
	pf.Close()
	start = time.Now()
	r, err := Check(path, Options{FullCheck: true})
	t.Logf("Check (walk + bbolt Tx.Check): %v, err %v, problems %v", time.Since(start), err, r.Problems)
	start = time.Now()
	d, err := OpenReadOnly(path, Options{CheckLimit: -1})
	t.Logf("OpenReadOnly without full check: %v %v", time.Since(start), err)
	d.Close()
	start = time.Now()
	d, err = Open(path, Options{CheckLimit: -1, NoSync: true})
	t.Logf("Open (walk + bbolt's own freelist walk): %v %v", time.Since(start), err)
	start = time.Now()
	err = d.Backup()
	t.Logf("Backup: %v %v", time.Since(start), err)
	d.opts.NoBackup = true
	d.Close()
	os.Remove(BackupPath(path))
}
