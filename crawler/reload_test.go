package crawler

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/scope"
)

// TestReloadSaysHowOverridesChanged: a reload lists the hosts: section
// only when an entry changed, each change before -> after as the delays
// are (before: "hosts: 1 override(s)", also when only the entry's line in
// the file had moved, and no word of what changed); an entry that only
// moved still takes its new place, for why.
func TestReloadSaysHowOverridesChanged(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	cfg := testConfig()
	cfg.Rules = scope.Config{Domains: []string{"a.test", "b.test"}}
	entry := func(minDelay time.Duration, where string) frontier.Override {
		return frontier.Override{MinDelay: minDelay, Key: "hosts.a.test", Where: where}
	}
	cfg.Hosts = map[string]frontier.Override{"a.test": entry(200*time.Millisecond, "crawl.yaml:30")}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	no := false
	for i, s := range []struct {
		hosts map[string]frontier.Override
		delay time.Duration
		want  []string
	}{
		{cfg.Hosts, cfg.DefaultDelay, nil},
		{map[string]frontier.Override{"a.test": entry(200*time.Millisecond, "crawl.yaml:31")}, cfg.DefaultDelay, nil},
		{map[string]frontier.Override{"a.test": entry(200*time.Millisecond, "crawl.yaml:31")}, time.Second,
			[]string{"politeness.default_delay 50ms -> 1s"}},
		{map[string]frontier.Override{"a.test": entry(500*time.Millisecond, "crawl.yaml:31")}, time.Second,
			[]string{"hosts.a.test.min_delay 200ms -> 500ms"}},
		{map[string]frontier.Override{"a.test": entry(500*time.Millisecond, "crawl.yaml:31"),
			"b.test": {MaxPages: 10, WARC: &no, Key: "hosts.b.test"}}, time.Second,
			[]string{"hosts.b.test added {max_pages: 10, warc: false}"}},
	} {
		got, err := c.reconfigure(Live{Rules: cfg.Rules, Hosts: s.hosts, DefaultDelay: s.delay, MaxDelay: cfg.MaxDelay, Workers: cfg.Workers})
		if err != nil || !slices.Equal(got, s.want) {
			t.Errorf("step %d: reload says %q, %v; want %q", i, got, err, s.want)
		}
		if w := c.cfg.Hosts["a.test"].Where; w != s.hosts["a.test"].Where {
			t.Errorf("step %d: hosts.a.test is at %s after the reload, want %s", i, w, s.hosts["a.test"].Where)
		}
	}
}
