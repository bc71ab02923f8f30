package frontier

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// giveUpFrontier opens a state file and returns a way to start a frontier
// of a.test on it (again, for a next run).
func giveUpFrontier(t *testing.T) (*storage.DB, time.Time, func() *Frontier[string]) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "g.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	scope, _ := hostScope([]string{"a.test"})
	return db, now, func() *Frontier[string] {
		return New[string](Options{Scope: scope, Delays: DelayPolicy{Default: time.Second, Max: time.Minute}, Now: func() time.Time { return now }})
	}
}

// TestGiveUpOriginAndRequeue: an origin given up fails its queued URLs
// (and only its own: another scheme on the same host keeps its queue),
// the host's count follows its queue, and the next run queues them again.
func TestGiveUpOriginAndRequeue(t *testing.T) {
	db, now, open := giveUpFrontier(t)
	f := open()
	urls := []string{"http://a.test/1", "https://a.test/2", "http://a.test/3"}
	const reason = "robots.txt unreachable after 3 attempts"
	var failed []string
	queue := func(tx *storage.Tx) (q []string) {
		tx.ForEachQueued("a.test", func(_ uint64, u string) error { q = append(q, u); return nil })
		return q
	}
	if err := db.Update(func(tx *storage.Tx) error {
		for _, u := range urls {
			if _, err := f.Admit(tx, Candidate{URL: u, Via: "seed"}, now); err != nil {
				return err
			}
		}
		var err error
		failed, err = f.GiveUpOrigin(tx, "a.test", "http://a.test", reason, 0, now)
		if q := queue(tx); !slices.Equal(q, []string{"https://a.test/2"}) || f.Lookup("a.test").Queued() != 1 {
			t.Errorf("queue %v, counted %d; want only the https URL", q, f.Lookup("a.test").Queued())
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(failed, []string{"http://a.test/1", "http://a.test/3"}) {
		t.Errorf("failed %v", failed)
	}
	// The next run.
	f = open()
	if err := db.Update(func(tx *storage.Tx) error {
		n, err := RequeueGivenUp(tx, "http://a.test", func(e string) bool { return strings.HasPrefix(e, "robots.txt unreachable") })
		if err != nil || n != 2 {
			t.Errorf("queued again %d (%v), want 2", n, err)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *storage.Tx) error {
		if err := f.Restore(tx, false, now); err != nil {
			return err
		}
		if q := queue(tx); len(q) != 3 || f.Lookup("a.test").Queued() != 3 {
			t.Errorf("after the next run's start: queue %v, counted %d; want all 3", q, f.Lookup("a.test").Queued())
		}
		r, _ := tx.GetURL("http://a.test/1")
		if r.State != storage.Queued || r.Error != "" {
			t.Errorf("record %+v: not queued again", r)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestGiveUpOriginWithALostRecord: a queue entry whose URL record was lost
// (a damaged file) leaves the queue with the others, and the entries after
// it are failed as usual.
func TestGiveUpOriginWithALostRecord(t *testing.T) {
	db, now, open := giveUpFrontier(t)
	f := open()
	if err := db.Update(func(tx *storage.Tx) error {
		if err := tx.Enqueue("a.test", "http://a.test/lost"); err != nil { // no record
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *storage.Tx) error {
		if err := f.Restore(tx, false, now); err != nil {
			return err
		}
		if _, err := f.Admit(tx, Candidate{URL: "http://a.test/kept", Via: "seed"}, now); err != nil {
			return err
		}
		failed, err := f.GiveUpOrigin(tx, "a.test", "http://a.test", "robots.txt unreachable after 3 attempts", 0, now)
		if err != nil {
			return err
		}
		var q []string
		tx.ForEachQueued("a.test", func(_ uint64, u string) error { q = append(q, u); return nil })
		if len(q) != 0 || f.Lookup("a.test").Queued() != 0 {
			t.Errorf("queue %v, counted %d: want both entries gone", q, f.Lookup("a.test").Queued())
		}
		if !slices.Equal(failed, []string{"http://a.test/kept"}) {
			t.Errorf("failed %v, want the URL after the lost one", failed)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
