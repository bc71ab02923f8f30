package frontier

import (
	bolt "go.etcd.io/bbolt"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// refusePrivate is a robots.txt that disallows every URL under /private/.
type refusePrivate struct{}

func (refusePrivate) Verdict(url string) Verdict {
	if len(url) > len("http://a.test/private/") && url[:len("http://a.test/private/")] == "http://a.test/private/" {
		return Verdict{State: storage.Disallowed, Reason: "robots.txt: Disallow: /private/ (line 2)"}
	}
	return Verdict{}
}

func decideFrontier(t *testing.T) (*Frontier[string], *storage.DB, time.Time) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "d.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	scope, _ := hostScope([]string{"a.test"})
	f := New[string](Options{Scope: scope, Delays: DelayPolicy{Default: time.Second, Max: time.Minute}, Robots: refusePrivate{},
		Now: func() time.Time { return now }})
	return f, db, now
}

// TestSeed: what seeding says of each URL, and that a refused seed is
// reported as a refusal.
func TestSeed(t *testing.T) {
	f, db, now := decideFrontier(t)
	db.Update(func(tx *storage.Tx) error {
		for _, c := range []struct{ raw, want string }{
			{"http://a.test/", "queued"},
			{"HTTP://A.TEST/", "known"},
			{"http://b.test/", "out of scope"},
			{"mailto:x@y", "invalid: "},
			{"http://a.test/private/x", "disallowed: robots.txt: Disallow: /private/ (line 2)"},
		} {
			got, _, err := f.Seed(tx, c.raw, now)
			if err != nil || got != c.want && !(c.want == "invalid: " && len(got) > len(c.want) && got[:len(c.want)] == c.want) {
				t.Errorf("Seed(%q) = %q, %v; want %q", c.raw, got, err, c.want)
			}
		}
		if r := f.Refusals(); len(r) != 1 || r[0].URL != "http://a.test/private/x" {
			t.Errorf("refusals %+v, want the disallowed seed", r)
		}
		if f.Lookup("a.test").Queued() != 1 {
			t.Errorf("a.test counts %d queued, want 1", f.Lookup("a.test").Queued())
		}
		return nil
	})
}

// TestAdmitHandedOff: a URL handed to a node is queued when new, reported
// as it stands when seen, queued again when this node had released it,
// and its refusal by robots.txt comes back to be reported.
func TestAdmitHandedOff(t *testing.T) {
	f, db, now := decideFrontier(t)
	const released = "cluster: handled by another node"
	db.Update(func(tx *storage.Tx) error {
		tx.PutURL(&storage.URLRecord{URL: "http://a.test/done", State: storage.Fetched, Status: 200, Links: []string{}}, "")
		tx.PutURL(&storage.URLRecord{URL: "http://a.test/gone", State: storage.Skipped, Error: released, Links: []string{}}, "")
		for _, c := range []struct {
			url                  string
			queued, out, refused bool
			state                storage.State // of Record, "" for none
		}{
			{"http://a.test/new", true, false, false, ""},
			{"http://a.test/new", true, false, false, ""}, // queued already
			{"http://a.test/done", false, false, false, storage.Fetched},
			{"http://a.test/gone", true, false, false, ""},
			{"http://a.test/private/p", false, false, true, storage.Disallowed},
			{"http://b.test/", false, true, false, ""},
		} {
			h, err := f.AdmitHandedOff(tx, Candidate{URL: c.url, Via: "link"}, released, now)
			state := storage.State("")
			if h.Record != nil {
				state = h.Record.State
			}
			if err != nil || h.Queued != c.queued || h.OutOfScope != c.out || h.Admission.Refused != c.refused || state != c.state {
				t.Errorf("%s: %+v (record %q), %v", c.url, h, state, err)
			}
		}
		if n := f.Lookup("a.test").Queued(); n != 2 {
			t.Errorf("a.test counts %d queued, want 2 (new, gone)", n)
		}
		return nil
	})
}

// TestSettleUnfetched: a queue head decided without a request is recorded
// and leaves the queue; one fetched before keeps its fetch time and stays
// on the recheck schedule when the crawl rechecks.
func TestSettleUnfetched(t *testing.T) {
	f, db, now := decideFrontier(t)
	f.recrawl = time.Hour
	fetched := now.Add(-2 * time.Hour)
	db.Update(func(tx *storage.Tx) error {
		for _, u := range []string{"http://a.test/1", "http://a.test/2"} {
			if _, err := f.Admit(tx, Candidate{URL: u, Via: "seed"}, now); err != nil {
				t.Fatal(err)
			}
		}
		r, _ := tx.GetURL("http://a.test/2")
		r.FetchedAt, r.Status = fetched, 200
		tx.PutURL(r, r.State)
		var seqs []uint64
		tx.ForEachQueued("a.test", func(seq uint64, _ string) error { seqs = append(seqs, seq); return nil })
		for i, u := range []string{"http://a.test/1", "http://a.test/2"} {
			if err := f.SettleUnfetched(tx, "a.test", seqs[i], u, storage.Disallowed, "robots.txt", now); err != nil {
				t.Fatal(err)
			}
		}
		if n := f.Lookup("a.test").Queued(); n != 0 {
			t.Errorf("a.test counts %d queued, want 0", n)
		}
		r1, _ := tx.GetURL("http://a.test/1")
		r2, _ := tx.GetURL("http://a.test/2")
		if r1.State != storage.Disallowed || r1.Scheduled() {
			t.Errorf("never fetched: %+v", r1)
		}
		if r2.State != storage.Disallowed || !r2.Scheduled() || !r2.FetchedAt.Equal(fetched) || r2.Status != 0 {
			t.Errorf("fetched before: %+v; want disallowed, fetched_at kept, rechecked", r2)
		}
		return nil
	})
}

// TestSeedDamagedRecord: a URL whose record does not decode is known (it
// has a record), and the seeds around it are still admitted: one damaged
// record failed the whole seed command, POST /seeds or reload.
func TestSeedDamagedRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	db, err := storage.Open(path, storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("urls")).Put([]byte("http://a.test/bad"), []byte("\xff not a record"))
	}); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err = storage.Open(path, storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	scope, _ := hostScope([]string{"a.test"})
	f := New[string](Options{Scope: scope, Delays: DelayPolicy{Default: time.Second, Max: time.Minute}, Now: func() time.Time { return now }})
	err = db.Update(func(tx *storage.Tx) error {
		for _, c := range []struct{ raw, want string }{
			{"http://a.test/bad", "known"},
			{"http://a.test/good", "queued"},
		} {
			if got, _, err := f.Seed(tx, c.raw, now); err != nil || got != c.want {
				t.Errorf("Seed(%q) = %q, %v; want %q", c.raw, got, err, c.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
