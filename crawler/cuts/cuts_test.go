package cuts

import (
	"context"
	"testing"
)

// TestCut: a task a worker began is cancelled and reports it was cut; a
// task still waiting is taken back (Withdrawn, counted as waiting until a
// worker skips it, and begin refuses it); other hosts are left alone; a
// task over before the cut is not cut.
func TestCut(t *testing.T) {
	k := New[string]()
	var withdrawn []string
	k.Withdrawn = func(task string) { withdrawn = append(withdrawn, task) }
	bg := context.Background()
	runCtx, runStop, runBegin := k.Register("a.test", bg, "running")
	_, waitStop, waitBegin := k.Register("b.test", bg, "waiting")
	otherCtx, otherStop, _ := k.Register("c.test", bg, "other")
	_, doneStop, _ := k.Register("d.test", bg, "done")
	if !runBegin() {
		t.Fatal("a worker could not begin a task nobody cut")
	}
	if doneStop() {
		t.Error("a task over before any cut says it was cut")
	}
	n := k.Cut(func(h string) bool { return h != "c.test" })
	if n != 2 {
		t.Errorf("cut %d, want 2 (a running, a waiting; d was over)", n)
	}
	if runCtx.Err() == nil || !runStop() {
		t.Error("the running task was not cancelled, or does not say it was cut")
	}
	if len(withdrawn) != 1 || withdrawn[0] != "waiting" || k.Waiting() != 1 {
		t.Errorf("withdrawn %v, waiting %d; want the waiting task, 1", withdrawn, k.Waiting())
	}
	if waitBegin() {
		t.Error("a worker began a task taken back")
	}
	k.Skip()
	select {
	case <-k.Skipped():
	default:
		t.Error("no word that a worker skipped a task")
	}
	if k.Waiting() != 0 {
		t.Errorf("waiting %d after the skip", k.Waiting())
	}
	_ = waitStop
	if otherCtx.Err() != nil || otherStop() {
		t.Error("a host not selected was cut")
	}
	if k.Cut(func(string) bool { return true }) != 0 {
		t.Error("a second cut found tasks that were over or cut")
	}
}
