package frontier

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

func TestOverridesForTheMostSpecificEntry(t *testing.T) {
	o := NewOverrides(map[string]Override{
		"example.org":           {Key: "hosts.example.org"},
		"docs.example.org":      {Key: "hosts.docs.example.org"},
		"docs.example.org:8080": {Key: "hosts.docs.example.org:8080"},
	})
	for _, c := range []struct{ authority, want string }{
		{"example.org", "hosts.example.org"},
		{"www.example.org:443", "hosts.example.org"},
		{"docs.example.org", "hosts.docs.example.org"},
		{"a.docs.example.org", "hosts.docs.example.org"},
		{"docs.example.org:8080", "hosts.docs.example.org:8080"},
		{"example.com", ""},
		{"badexample.org", ""},
	} {
		got, _ := o.For(c.authority)
		if got.Key != c.want {
			t.Errorf("For(%q) = %q, want %q", c.authority, got.Key, c.want)
		}
	}
	if _, ok := (*Overrides)(nil).For("a"); ok {
		t.Error("nil Overrides has an entry")
	}
}

// TestOverrideDelayFloor: min_delay replaces the default as the floor,
// faster or slower; robots.txt's Crawl-delay wins when slower; max_delay
// does not cap an override that asks for more.
func TestOverrideDelayFloor(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f := New[string](Options{Delays: DelayPolicy{Default: time.Second, Max: 5 * time.Second},
		Hosts: NewOverrides(map[string]Override{"fast.test": {MinDelay: 200 * time.Millisecond},
			"slow.test": {MinDelay: 10 * time.Second}})})
	for i, c := range []struct {
		host, robots string
		want         time.Duration
	}{
		{"other.test", "", time.Second},
		{"fast.test", "", 200 * time.Millisecond},
		{"fast.test", "User-agent: *\nCrawl-delay: 3\n", 3 * time.Second},
		{"slow.test", "", 10 * time.Second},
		{"slow.test", "User-agent: *\nCrawl-delay: 2\n", 10 * time.Second},
	} {
		f.Meet(c.host, now)
		if c.robots != "" {
			f.ApplyRobots(c.host, robots.Parse([]byte(c.robots)), "politecrawl", now)
		}
		if got := f.Interval(c.host); got != c.want {
			t.Errorf("step %d: Interval(%s) with robots %q = %v, want %v", i, c.host, c.robots, got, c.want)
		}
	}
}

// TestOverrideMaxPages: a host's max_pages stops admission there, with
// the override's key in the reason; other hosts go on.
func TestOverrideMaxPages(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "o.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := scope.Compile(scope.Config{Domains: []string{"test"}})
	f := New[string](Options{Scope: s, Hosts: NewOverrides(map[string]Override{"a.test": {MaxPages: 2, Key: "hosts.a.test"}})})
	now := time.Now()
	db.Update(func(tx *storage.Tx) error {
		for _, h := range []string{"a.test", "b.test"} {
			for i := range 3 {
				if _, err := f.Admit(tx, Candidate{URL: fmt.Sprintf("http://%s/%d", h, i)}, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		return nil
	})
	db.View(func(tx *storage.Tx) error {
		for url, want := range map[string]string{"http://a.test/1": "queued", "http://a.test/2": "hosts.a.test.max_pages 2 reached",
			"http://b.test/2": "queued"} {
			r, _ := tx.GetURL(url)
			got := string(r.State)
			if r.State == storage.Skipped {
				got = r.Error
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s: %s, want %s", url, got, want)
			}
		}
		return nil
	})
}

func TestStoreBodiesAndArchivesPerHost(t *testing.T) {
	no, yes := false, true
	f := New[string](Options{Hosts: NewOverrides(map[string]Override{"a.test": {StoreBodies: &no, WARC: &no}, "b.test": {StoreBodies: &yes}})})
	for _, c := range []struct {
		host          string
		def           bool
		bodies, warcs bool
	}{{"a.test", true, false, false}, {"b.test", false, true, true}, {"c.test", true, true, true}, {"c.test", false, false, true}} {
		if got := f.StoreBodies(c.host, c.def); got != c.bodies {
			t.Errorf("StoreBodies(%s, %v) = %v", c.host, c.def, got)
		}
		if got := f.Archives(c.host, true); got != c.warcs {
			t.Errorf("Archives(%s) = %v", c.host, got)
		}
	}
}

// TestOverrideChanges: a reload's lines for the hosts: section, one per
// changed setting, before -> after; none for an entry that only moved in
// the file.
func TestOverrideChanges(t *testing.T) {
	yes, no := true, false
	was := map[string]Override{
		"a.test": {MinDelay: 200 * time.Millisecond, Key: "hosts.a.test", Where: "c.yaml:3"},
		"b.test": {MinDelay: 10 * time.Second, MaxPages: 5000, StoreBodies: &no, Key: "hosts.b.test"},
	}
	for i, c := range []struct {
		now  map[string]Override
		want []string
	}{
		{was, nil},
		{map[string]Override{"a.test": {MinDelay: 200 * time.Millisecond, Key: "hosts.a.test", Where: "c.yaml:9"}, "b.test": was["b.test"]}, nil},
		{map[string]Override{"a.test": {MinDelay: 500 * time.Millisecond, Key: "hosts.a.test"}, "b.test": was["b.test"]},
			[]string{"hosts.a.test.min_delay 200ms -> 500ms"}},
		{map[string]Override{"a.test": was["a.test"], "b.test": {MinDelay: 10 * time.Second, StoreBodies: &yes, WARC: &no, Key: "hosts.b.test"}},
			[]string{"hosts.b.test.max_pages 5000 -> unset", "hosts.b.test.store_bodies false -> true", "hosts.b.test.warc unset -> false"}},
		{map[string]Override{"c.test:8080": {}}, []string{"hosts.a.test removed (was {min_delay: 200ms})",
			"hosts.b.test removed (was {min_delay: 10s, max_pages: 5000, store_bodies: false})", "hosts.c.test:8080 added {}"}},
		{nil, []string{"hosts.a.test removed (was {min_delay: 200ms})", "hosts.b.test removed (was {min_delay: 10s, max_pages: 5000, store_bodies: false})"}},
	} {
		if got := OverrideChanges(was, c.now); !slices.Equal(got, c.want) {
			t.Errorf("step %d: OverrideChanges = %q, want %q", i, got, c.want)
		}
	}
	if got := OverrideChanges(nil, nil); got != nil {
		t.Errorf("OverrideChanges(nil, nil) = %q, want none", got)
	}
}
