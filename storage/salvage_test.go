package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// leafOf returns a leaf page of the urls bucket (its values are URL
// records) from a healthy file.
func urlsLeaf(t *testing.T, path string) uint64 {
	t.Helper()
	ps, _, leaves := pagesOf(t, path)
	b, _ := os.ReadFile(path)
	for _, id := range leaves[len(leaves)/3:] {
		// The records' titles: 100 't's (see mustStateFile).
		if bytes.Contains(b[int64(id)*ps:int64(id+1)*ps], bytes.Repeat([]byte("t"), 100)) {
			return id
		}
	}
	t.Fatal("no leaf page of urls")
	return 0
}

func salvageCounts(t *testing.T, rep *SalvageReport) map[string]BucketSalvage {
	t.Helper()
	out := map[string]BucketSalvage{}
	for _, b := range rep.Buckets {
		out[b.Name] = b
	}
	return out
}

// mustConsistent checks what a resumed crawl relies on: counters match
// the records, every queue entry has a queued record and vice versa.
func mustConsistent(t *testing.T, path string) (records int) {
	t.Helper()
	r, err := Check(path, Options{FullCheck: true})
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("check %s: %v %v", path, err, r.Problems)
	}
	d, err := Open(path, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.View(func(tx *Tx) error {
		counts := map[State]int{}
		queued := map[string]bool{}
		tx.ForEachURL(func(r *URLRecord) error {
			counts[r.State]++
			records++
			if r.State == Queued || r.NextCheck.Equal(CheckQueued) {
				queued[r.URL] = true
			}
			return nil
		})
		for s, n := range tx.Counts() {
			if counts[s] != n {
				t.Errorf("count %s = %d, records say %d", s, n, counts[s])
			}
		}
		inQueue := 0
		tx.QueuedHosts(func(h string, n int) error {
			got := 0
			tx.ForEachQueued(h, func(_ uint64, u string) error {
				got++
				if !queued[u] {
					t.Errorf("queue entry %s has no queued record", u)
				}
				return nil
			})
			if got != n {
				t.Errorf("host %s: count %d, entries %d", h, n, got)
			}
			inQueue += got
			return nil
		})
		if inQueue != len(queued) {
			t.Errorf("%d queue entries for %d queued records", inQueue, len(queued))
		}
		if !tx.Flag("running") {
			t.Error("a salvaged file must resume as after a crash")
		}
		return nil
	})
	return records
}

func TestSalvageHealthyCopiesEverything(t *testing.T) {
	src := mustStateFile(t, 900)
	dst := filepath.Join(t.TempDir(), "new.db")
	rep, err := Salvage(src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems %v", rep.Problems)
	}
	got := salvageCounts(t, rep)
	for name, want := range map[string]int{"urls": 900, "queue": 300, "bodies": 600, "hosts": 5, "robots": 5} {
		if got[name].Copied != want || got[name].DamagedPages != 0 {
			t.Errorf("bucket %s: %+v, want %d copied", name, got[name], want)
		}
	}
	if got["urls"].Lost != 0 || got["queue"].Lost != 0 {
		t.Errorf("lost: urls %d, queue %d", got["urls"].Lost, got["queue"].Lost)
	}
	if n := mustConsistent(t, dst); n != 900 {
		t.Errorf("%d records in the copy", n)
	}
}

func TestSalvageDamagedPage(t *testing.T) {
	src := mustStateFile(t, 900)
	ps, _, _ := pagesOf(t, src)
	overwrite(t, src, int64(urlsLeaf(t, src))*ps, garbage(64, 9))
	if _, err := readAll(src, true); err == nil {
		t.Fatal("the damaged file reads clean")
	}
	dst := filepath.Join(t.TempDir(), "new.db")
	rep, err := Salvage(src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	urls := salvageCounts(t, rep)["urls"]
	if urls.DamagedPages != 1 || urls.Copied >= 900 || urls.Copied < 850 || urls.Lost != 900-urls.Copied {
		t.Errorf("urls %+v", urls)
	}
	if len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0], `bucket "urls"`) {
		t.Errorf("problems %v", rep.Problems)
	}
	if n := mustConsistent(t, dst); n != urls.Copied {
		t.Errorf("%d records in the copy, report says %d", n, urls.Copied)
	}
}

func TestSalvageTruncated(t *testing.T) {
	src := mustStateFile(t, 900)
	fi, _ := os.Stat(src)
	os.Truncate(src, fi.Size()/2)
	dst := filepath.Join(t.TempDir(), "new.db")
	rep, err := Salvage(src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0], "truncated") {
		t.Errorf("problems %v", rep.Problems)
	}
	mustConsistent(t, dst)
}

func TestSalvageRefusesToOverwrite(t *testing.T) {
	src := mustStateFile(t, 10)
	dst := filepath.Join(t.TempDir(), "new.db")
	os.WriteFile(dst, []byte("precious"), 0o600)
	if _, err := Salvage(src, dst, Options{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "precious" {
		t.Error("dst was overwritten")
	}
}

func TestSalvageNothingReadable(t *testing.T) {
	src := filepath.Join(t.TempDir(), "state.db")
	os.WriteFile(src, garbage(1<<16, 3), 0o600)
	_, err := Salvage(src, filepath.Join(t.TempDir(), "new.db"), Options{})
	if err == nil || !strings.Contains(err.Error(), "nothing can be salvaged") {
		t.Fatalf("err %v", err)
	}
}

func TestPeriodicBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	d, err := Open(path, Options{NoSync: true, BackupEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.Update(func(tx *Tx) error { return tx.PutURL(&URLRecord{URL: "http://a.test/", State: Queued}, "") })
	for i := 0; ; i++ {
		if n, err := readAll(BackupPath(path), true); err == nil && n == 1 {
			break
		}
		if i == 200 {
			t.Fatal("no backup with the record after 2s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSalvageKeepsQueuedRechecks: a fetched page queued for its recheck
// (NextCheck CheckQueued) keeps its queue entry through a salvage, and one
// whose entry was lost is queued again; a scheduled failed page keeps its
// schedule. Salvage dropped such entries as "URL record was lost", and the
// page was never rechecked again.
func TestSalvageKeepsQueuedRechecks(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.db")
	d, err := Open(src, Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	const kept, lost, failed = "http://h.test/kept", "http://h.test/lost", "http://h.test/failed"
	at := time.Now().Add(time.Hour).Round(0).UTC()
	err = d.Update(func(tx *Tx) error {
		for _, u := range []string{kept, lost} {
			if err := tx.PutURL(&URLRecord{URL: u, State: Fetched, Status: 200, NextCheck: CheckQueued}, ""); err != nil {
				return err
			}
		}
		if err := tx.PutURL(&URLRecord{URL: failed, State: Failed, Error: "x", NextCheck: at}, ""); err != nil {
			return err
		}
		if err := tx.ScheduleDue(Due{At: at, Kind: DuePage, URL: failed}); err != nil {
			return err
		}
		return tx.Enqueue("h.test", kept)
	})
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "new.db")
	if _, err := Salvage(src, dst, Options{}); err != nil {
		t.Fatal(err)
	}
	mustConsistent(t, dst)
	d, err = Open(dst, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.View(func(tx *Tx) error {
		var queued []string
		tx.ForEachQueued("h.test", func(_ uint64, u string) error { queued = append(queued, u); return nil })
		slices.Sort(queued)
		if want := []string{kept, lost}; !slices.Equal(queued, want) {
			t.Errorf("queued after salvage: %q, want %q", queued, want)
		}
		if next, ok := tx.NextDue(); tx.CountDue() != 1 || !ok || !next.Equal(at) {
			t.Errorf("after salvage: %d due, the next at %v; want the failed page's, at %v", tx.CountDue(), next, at)
		}
		return nil
	})
}
