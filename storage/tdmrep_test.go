package storage

import (
	"path/filepath"
	"testing"
	"time"
)

// A state file from before the tdmrep bucket opens read-only and for
// writing and reads as having no tdmrep.json records; the first record
// written creates the bucket, and reads back after a reopen.
func TestTDMRepOnAnOldFile(t *testing.T) {
	path, _ := mustOldStateFile(t)
	none := func(d *DB, step string) {
		t.Helper()
		err := d.View(func(tx *Tx) error {
			if r, err := tx.GetTDMRep("https://a.test"); r != nil || err != nil {
				t.Errorf("%s: GetTDMRep = %+v, %v; want none", step, r, err)
			}
			return tx.ForEachTDMRep(func(o string, _ *TDMRepRecord) error {
				t.Errorf("%s: a record for %s", step, o)
				return nil
			})
		})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	d, err := OpenReadOnly(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	none(d, "read-only")
	d.Close()

	d, err = Open(path, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	none(d, "writable")
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	want := TDMRepRecord{FetchedAt: at, ExpiresAt: at.Add(24 * time.Hour), Status: 200, Body: []byte(`[]`)}
	if err := d.Update(func(tx *Tx) error { return tx.PutTDMRep("https://a.test", &want) }); err != nil {
		t.Fatal(err)
	}
	d.Close()

	d, err = OpenReadOnly(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.View(func(tx *Tx) error {
		n := 0
		tx.ForEachTDMRep(func(o string, r *TDMRepRecord) error {
			n++
			if o != "https://a.test" || !r.FetchedAt.Equal(want.FetchedAt) || !r.ExpiresAt.Equal(want.ExpiresAt) ||
				r.Status != want.Status || string(r.Body) != string(want.Body) {
				t.Errorf("read back %s %+v, want %+v", o, *r, want)
			}
			return nil
		})
		if n != 1 {
			t.Errorf("%d records, want 1", n)
		}
		return nil
	})
	d.Close()
	mustConsistentFile(t, path)
}

// Salvage copies the tdmrep bucket, and drops a record that does not
// decode (it would stop a crawl's restore).
func TestSalvageTDMRep(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.db")
	d, err := Open(src, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Update(func(tx *Tx) error {
		if err := tx.PutTDMRep("https://good.test", &TDMRepRecord{Status: 404}); err != nil {
			return err
		}
		return tx.tx.Bucket(bucketTDMRep).Put([]byte("https://bad.test"), []byte("{not json"))
	})
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "new.db")
	rep, err := Salvage(src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := salvageCounts(t, rep)["tdmrep"]; got.Copied != 1 || got.Lost != 1 {
		t.Errorf("tdmrep bucket: %+v, want 1 copied, 1 lost", got)
	}
	d, err = OpenReadOnly(dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var origins []string
	if err := d.View(func(tx *Tx) error {
		return tx.ForEachTDMRep(func(o string, _ *TDMRepRecord) error { origins = append(origins, o); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if len(origins) != 1 || origins[0] != "https://good.test" {
		t.Errorf("salvaged records of %v, want https://good.test's", origins)
	}
}
