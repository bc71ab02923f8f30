package storage

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestHostStates: every state change through PutURL moves the host's
// per-state counts, across commits, summing to the global counters; a
// file whose bucket is missing (written before it existed) gets it
// rebuilt from its records at the next commit.
func TestHostStates(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "s.db"), Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(url string, s, prev State) {
		t.Helper()
		if err := db.Update(func(tx *Tx) error {
			return tx.PutURL(&URLRecord{URL: url, State: s, Links: []string{}}, prev)
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("http://a.test/1", Queued, "")
	put("http://a.test/1", Fetched, Queued)
	put("http://a.test:8080/x", Failed, "")
	put("http://a.test/2", Skipped, "")
	put("http://a.test/3", Queued, "")
	put("http://a.test/3", Disallowed, Queued)
	put("http://a.test/1", Disallowed, Fetched) // a recheck now disallowed
	put("mailto:x@a.test", Skipped, "")         // an unusable link: no host
	want := map[string]StateCounts{
		"a.test":      {Disallowed: 2, Skipped: 1},
		"a.test:8080": {Failed: 1},
	}
	check := func(step string) {
		t.Helper()
		got := map[string]StateCounts{}
		if err := db.View(func(tx *Tx) error {
			return tx.ForEachHostStates(func(h string, c StateCounts) error { got[h] = c; return nil })
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: hosts %v, want %v", step, got, want)
		}
		for h, c := range want {
			if got[h] != c {
				t.Errorf("%s: %s: %+v, want %+v", step, h, got[h], c)
			}
		}
	}
	check("kept")
	// An older file: no bucket. The next commit rebuilds it.
	if err := db.bolt.Update(func(btx *bolt.Tx) error { return btx.DeleteBucket(bucketHostStates) }); err != nil {
		t.Fatal(err)
	}
	put("http://b.test/", Fetched, "")
	want["b.test"] = StateCounts{Fetched: 1}
	check("rebuilt")
}
