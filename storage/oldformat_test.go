package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// mustOldStateFile writes a state file as the code before the binary
// records did, directly with bbolt: JSON URL records with the parent URL
// in them, queue values that are whole URLs, no parents buckets, and no
// freelist page (NoFreelistSync). It returns the path and the records.
func mustOldStateFile(t *testing.T) (string, map[string]URLRecord) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	b, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	recs := map[string]URLRecord{}
	err = b.Update(func(tx *bolt.Tx) error {
		old := [][]byte{bucketURLs, bucketQueue, bucketHostQ, bucketHostA, bucketHosts, bucketRobots, bucketBodies, bucketMeta, bucketSitemaps, bucketDue}
		for _, name := range old {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		put := func(r URLRecord) {
			v, _ := json.Marshal(r)
			tx.Bucket(bucketURLs).Put([]byte(r.URL), v)
			recs[r.URL] = r
		}
		put(URLRecord{URL: "https://a.test/", State: Fetched, Status: 200, DiscoveredVia: "seed", FetchedAt: at,
			ContentType: "text/html", Title: "A", Links: []string{"https://a.test/1", "https://a.test/2"}, Bytes: 99})
		for i := 1; i <= 2; i++ {
			u := fmt.Sprintf("https://a.test/%d", i)
			put(URLRecord{URL: u, State: Queued, Depth: 1, DiscoveredVia: "link", Parent: "https://a.test/", Links: []string{}})
			tx.Bucket(bucketQueue).Put(queueKey("a.test", uint64(i)), []byte(u))
		}
		for i := range 300 { // enough for pages of their own
			put(URLRecord{URL: fmt.Sprintf("https://c.test/%03d", i), State: Fetched, Title: strings.Repeat("t", 100)})
		}
		m := tx.Bucket(bucketMeta)
		m.Put(keySeq, putU64(2))
		m.Put(countKey(Fetched), putU64(301))
		m.Put(countKey(Queued), putU64(2))
		tx.Bucket(bucketHostQ).Put([]byte("a.test"), putU64(2))
		return tx.Bucket(bucketHostA).Put([]byte("a.test"), putU64(3))
	})
	if err != nil {
		t.Fatal(err)
	}
	return path, recs
}

// TestOldFormatStillWorks: a file written before the binary records and
// the synced freelist opens read-only and for writing, reads as it was
// written (records, parents, queue), and keeps crawling: its queue
// drains, new records and queue entries are written the new way beside
// the old, and it gains a freelist page.
func TestOldFormatStillWorks(t *testing.T) {
	path, recs := mustOldStateFile(t)
	read := func(d *DB, step string) {
		t.Helper()
		err := d.View(func(tx *Tx) error {
			n := 0
			if err := tx.ForEachURL(func(r *URLRecord) error {
				n++
				if want, ok := recs[r.URL]; !ok || !sameRecord(*r, want) {
					t.Errorf("%s: record %+v, want %+v", step, *r, want)
				}
				return nil
			}); err != nil {
				return err
			}
			if n != len(recs) {
				t.Errorf("%s: %d records, want %d", step, n, len(recs))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	d, err := OpenReadOnly(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	read(d, "read-only")
	d.Close()

	d, err = Open(path, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	read(d, "writable")
	err = d.Update(func(tx *Tx) error {
		u, seq, ok := tx.Head("a.test")
		if !ok || u != "https://a.test/1" {
			return fmt.Errorf("head = %q, %v", u, ok)
		}
		if err := tx.Dequeue("a.test", seq); err != nil {
			return err
		}
		r, err := tx.GetURL(u)
		if err != nil {
			return err
		}
		r.State, r.Status, r.Links = Fetched, 200, []string{"https://b.test/x"}
		if err := tx.PutURL(r, Queued); err != nil {
			return err
		}
		recs[u] = *r
		n := URLRecord{URL: "https://b.test/x", State: Queued, Depth: 2, DiscoveredVia: "link", Parent: u, Links: []string{}}
		recs[n.URL] = n
		if err := tx.PutURL(&n, ""); err != nil {
			return err
		}
		return tx.Enqueue("b.test", n.URL)
	})
	if err != nil {
		t.Fatal(err)
	}
	read(d, "after a write")
	d.View(func(tx *Tx) error {
		var got []string
		for _, h := range []string{"a.test", "b.test"} {
			tx.ForEachQueued(h, func(_ uint64, u string) error { got = append(got, u); return nil })
		}
		if fmt.Sprint(got) != "[https://a.test/2 https://b.test/x]" {
			t.Errorf("queued %v", got)
		}
		if c := tx.Counts(); c[Queued] != 2 || c[Fetched] != 302 {
			t.Errorf("counts %v", c)
		}
		return nil
	})
	d.Close()
	pf, err := openPageFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if pf.meta.freelist == noFreelist {
		t.Error("a writable open left the file without a freelist page")
	}
	mustConsistentFile(t, path)
}

// mustConsistentFile is mustConsistent without the salvage's flag.
func mustConsistentFile(t *testing.T, path string) {
	t.Helper()
	d, err := Open(path, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Update(func(tx *Tx) error { return tx.SetFlag("running", true) })
	d.Close()
	mustConsistent(t, path)
}

// TestOpenOverCheckLimit: a writable open of a file over the check limit
// does not walk its pages (damage is found when a read reaches it), but
// still checks the freelist page bbolt will trust, and still walks a file
// without one, since bbolt is about to walk it in a goroutine of its own.
func TestOpenOverCheckLimit(t *testing.T) {
	big := Options{CheckLimit: 1, NoBackup: true}
	garbleLeaf := func(path string) {
		ps, _, _ := pagesOf(t, path)
		overwrite(t, path, int64(urlsLeaf(t, path))*ps+pageHeaderSize, garbage(64, 1))
	}
	tests := []struct {
		name       string
		file       func() string
		openFails  bool // else the first read of everything fails
		damageWith func(path string)
	}{
		{"garbled page, synced freelist", func() string { return mustStateFile(t, 600) }, false, garbleLeaf},
		{"garbled page, no freelist page", func() string { p, _ := mustOldStateFile(t); return p }, true, garbleLeaf},
		{"garbled freelist page", func() string { return mustStateFile(t, 600) }, true, func(path string) {
			pf, err := openPageFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fl, ps := pf.meta.freelist, int64(pf.meta.pageSize)
			pf.Close()
			if fl == noFreelist {
				t.Fatal("a new file has no freelist page")
			}
			overwrite(t, path, int64(fl)*ps+10, []byte{0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f})
		}},
	}
	for _, tc := range tests {
		path := tc.file()
		tc.damageWith(path)
		d, err := Open(path, big)
		if tc.openFails {
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("%s: open: %v, want ErrDamaged", tc.name, err)
			}
			if d != nil {
				d.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: open: %v, want no walk and no error", tc.name, err)
			continue
		}
		err = d.View(func(tx *Tx) error { return tx.ForEachURL(func(*URLRecord) error { return nil }) })
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: read: %v, want ErrDamaged", tc.name, err)
		}
		d.Close()
		os.Remove(path)
	}
}
