package frontier

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// TestPlanSweepOnlyForAChange: a crawl's first run with an interval
// records it and says nothing (before: "recrawl interval changed ...
// was=\"\"" and a sweep of the empty file); a later run with another
// interval sweeps and says what it was; a state file that fetched pages
// before intervals were recorded is swept, without calling that a change.
func TestPlanSweepOnlyForAChange(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logs bytes.Buffer
	plan := func(recrawl time.Duration) (*Frontier[int], string) {
		t.Helper()
		logs.Reset()
		f := New[int](Options{Recrawl: recrawl, Log: slog.New(slog.NewTextHandler(&logs, nil))})
		var setting string
		if err := db.Update(func(tx *storage.Tx) error {
			err := f.PlanSweep(tx)
			setting = tx.Setting(SettingRecrawl)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return f, setting
	}
	// A new state file (a seed queued by `seed`, nothing fetched).
	db.Update(func(tx *storage.Tx) error {
		return tx.PutURL(&storage.URLRecord{URL: "http://a.test/", State: storage.Queued, Links: []string{}}, "")
	})
	if f, got := plan(4 * time.Minute); f.Sweeping() || got != "4m0s" || logs.Len() > 0 {
		t.Errorf("first run: sweeping %v, interval recorded %q, logged %q; want no sweep, 4m0s, nothing", f.Sweeping(), got, logs.String())
	}
	if f, _ := plan(4 * time.Minute); f.Sweeping() || logs.Len() > 0 {
		t.Errorf("same interval again: sweeping %v, logged %q", f.Sweeping(), logs.String())
	}
	if f, _ := plan(5 * time.Minute); !f.Sweeping() || !strings.Contains(logs.String(), `msg="recrawl interval changed: scheduling fetched pages again" interval=5m0s was=4m0s`) {
		t.Errorf("a new interval: sweeping %v, logged %q; want a sweep and the change", f.Sweeping(), logs.String())
	}
	// A file whose pages were fetched before the interval was recorded.
	db.Update(func(tx *storage.Tx) error {
		tx.SetSetting(SettingRecrawl, "")
		tx.SetSetting(SettingSweep, "")
		return tx.PutURL(&storage.URLRecord{URL: "http://a.test/", State: storage.Fetched, Status: 200, Links: []string{}}, storage.Queued)
	})
	if f, _ := plan(4 * time.Minute); !f.Sweeping() || strings.Contains(logs.String(), "changed") || !strings.Contains(logs.String(), "interval=4m0s") {
		t.Errorf("an old file: sweeping %v, logged %q; want a sweep, not called a change", f.Sweeping(), logs.String())
	}
}
