package groupcommit

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// TestWait pins how long a batch of results stays open before it is
// committed: Ratio times the last commit, so the committer is busy at most
// a seventh of the time, and never more than AgeMax (what a crash may lose
// is what was fetched in that window). A commit that took no time (a clock
// that does not move, as under synctest) keeps batches as short as they
// were: committed as soon as nothing is left to record.
func TestWait(t *testing.T) {
	for _, tc := range []struct {
		last, want time.Duration
	}{
		{0, 0},
		{-time.Millisecond, 0}, // a clock that stepped back
		{time.Millisecond, 6 * time.Millisecond},
		{10 * time.Millisecond, 60 * time.Millisecond},
		{20 * time.Millisecond, AgeMax},
		{time.Second, AgeMax},
	} {
		if got := Wait(tc.last); got != tc.want {
			t.Errorf("Wait(%v) = %v, want %v", tc.last, got, tc.want)
		}
	}
}

// rig is a pipeline on a fresh state file with a clock the test moves,
// recording what Committed was told.
type rig struct {
	db        *storage.DB
	p         *Pipeline[string]
	now       time.Time
	committed []*Job[string]
	syncErr   error
	syncs     int
	onSync    func()
}

func newRig(t *testing.T) *rig {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "state.db"), storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &rig{db: db, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r.p = New(db, Options[string]{
		Now: func() time.Time { return r.now },
		Sync: func() error {
			r.syncs++
			if r.onSync != nil {
				r.onSync()
			}
			return r.syncErr
		},
		Committed: func(j *Job[string]) error { r.committed = append(r.committed, j); return nil },
	})
	// Before the file closes (cleanups run last first): a batch left
	// open would hold its write lock.
	t.Cleanup(func() { r.p.Stop() })
	return r
}

// write opens a batch (or uses the open one) and sets flag name in it,
// noting name as an event and one result.
func (r *rig) write(t *testing.T, name string) {
	t.Helper()
	b, err := r.p.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Do(func(tx *storage.Tx) error { return tx.SetFlag(name, true) }); err != nil {
		t.Fatal(err)
	}
	r.p.Note(name)
	r.p.Recorded(1)
}

// stored reports which of names are set in the committed state file.
func (r *rig) stored(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	if err := r.db.View(func(tx *storage.Tx) error {
		for _, n := range names {
			if tx.Flag(n) {
				out = append(out, n)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// gens lists the Gen and Events of the batches Committed was told of.
func (r *rig) gens() []string {
	var out []string
	for _, j := range r.committed {
		out = append(out, fmt.Sprintf("%d:%v/%d", j.Gen, j.Events, j.Results))
	}
	return out
}

// TestPipeline: what a batch's owner sees. Before Start (and after Stop)
// a batch handed over is committed at once; with the committer running,
// HandOver returns while the commit is under way, the batch's writes are
// in the state file only once Done delivered it, its events reach
// Committed in order with their generation, and the next Open completes
// the commit under way first (bbolt has one writer at a time).
func TestPipeline(t *testing.T) {
	r := newRig(t)
	// Noted with no batch open (a write committed on its own): reported
	// with the next batch, not dropped when it opens.
	r.p.Note("before")
	r.write(t, "a")
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.gens(), []string{"1:[before a]/1"}; !slices.Equal(got, want) {
		t.Fatalf("before Start: committed %v, want %v (inline)", got, want)
	}
	r.p.Start()
	r.write(t, "b")
	r.write(t, "c")
	if r.p.Batch() == nil || !slices.Equal(r.p.Noted(), []string{"b", "c"}) {
		t.Fatalf("open batch %v noting %v, want one noting [b c]", r.p.Batch(), r.p.Noted())
	}
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	if j := r.p.Committing(); j == nil || j.Gen != 2 || r.p.Batch() != nil {
		t.Fatalf("after HandOver: committing %+v, open %v; want gen 2 under way and none open", j, r.p.Batch())
	}
	j := <-r.p.Done()
	if got := r.stored(t, "a", "b", "c"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("stored once Done delivered: %v, want [a b c]", got)
	}
	if len(r.committed) != 1 {
		t.Errorf("Committed told of gen 2 before Finish")
	}
	if err := r.p.Finish(j); err != nil {
		t.Fatal(err)
	}
	if r.p.Done() != nil || r.p.Committing() != nil {
		t.Error("Done or Committing still set with the committer idle")
	}
	// The next batch, handed over and then followed at once by another
	// Open: the Open completes the commit under way.
	r.write(t, "d")
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	r.write(t, "e")
	if r.p.Committing() != nil {
		t.Error("Open returned with the commit before it not completed")
	}
	if err := r.p.Stop(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.gens(), []string{"1:[before a]/1", "2:[b c]/2", "3:[d]/1"}; !slices.Equal(got, want) {
		t.Errorf("committed %v, want %v", got, want)
	}
	if got := r.stored(t, "d", "e"); !slices.Equal(got, []string{"d"}) {
		t.Errorf("after Stop: stored %v, want [d] (the open batch with e rolled back)", got)
	}
	if r.p.Running() || r.p.Gen() != 3 {
		t.Errorf("after Stop: running %v, gen %d; want false, 3", r.p.Running(), r.p.Gen())
	}
}

// TestPipelineSyncFirst: a batch marked SyncFirst calls Sync before its
// commit, once, and others do not; a failed Sync rolls the batch back and
// the owner gets the error, with nothing reported.
func TestPipelineSyncFirst(t *testing.T) {
	r := newRig(t)
	r.p.Start()
	r.write(t, "plain")
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	if err := r.p.WaitCommit(); err != nil {
		t.Fatal(err)
	}
	if r.syncs != 0 {
		t.Errorf("%d syncs for a batch not marked", r.syncs)
	}
	r.write(t, "archived")
	r.p.SyncFirst()
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	if err := r.p.WaitCommit(); err != nil || r.syncs != 1 {
		t.Fatalf("marked batch: %v, %d syncs; want nil, 1", err, r.syncs)
	}
	r.syncErr = errors.New("disk full")
	r.write(t, "lost")
	r.p.SyncFirst()
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	if err := r.p.WaitCommit(); !errors.Is(err, r.syncErr) {
		t.Errorf("failed sync: WaitCommit said %v, want %v", err, r.syncErr)
	}
	if got := r.stored(t, "plain", "archived", "lost"); !slices.Equal(got, []string{"plain", "archived"}) {
		t.Errorf("stored %v, want [plain archived]", got)
	}
	if got, want := r.gens(), []string{"1:[plain]/1", "2:[archived]/1"}; !slices.Equal(got, want) {
		t.Errorf("committed %v, want %v", got, want)
	}
}

// TestPipelineDue: a batch is due Ratio times the last commit after it
// opened (at once while no commit took time), and full at MaxResults
// results.
func TestPipelineDue(t *testing.T) {
	r := newRig(t)
	if r.p.Due() {
		t.Error("due with no batch open")
	}
	r.write(t, "a")
	if !r.p.Due() {
		t.Error("not due while no commit took time")
	}
	// This commit takes 4 ms by the test's clock: its sync moves it.
	r.p.SyncFirst()
	r.onSync = func() { r.now = r.now.Add(4 * time.Millisecond) }
	if err := r.p.HandOver(); err != nil {
		t.Fatal(err)
	}
	r.write(t, "b")
	opened := r.now
	for _, tc := range []struct {
		after time.Duration
		due   bool
	}{{0, false}, {Ratio*4*time.Millisecond - time.Millisecond, false}, {Ratio * 4 * time.Millisecond, true}, {time.Hour, true}} {
		r.now = opened.Add(tc.after)
		if got := r.p.Due(); got != tc.due {
			t.Errorf("%v after opening (last commit 4 ms): due %v, want %v", tc.after, got, tc.due)
		}
	}
	if r.p.Full() {
		t.Error("full with one result")
	}
	r.p.Recorded(MaxResults - 1)
	if !r.p.Full() {
		t.Errorf("not full at %d results", MaxResults)
	}
}
