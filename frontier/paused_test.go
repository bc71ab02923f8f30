package frontier

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// TestHeld: the URLs queued on paused hosts are the crawl's held work,
// the same live (Held) and read from the state file after a stop
// (ReadHeld); PauseRecorded pauses and resumes a host the file knows,
// leaves an unknown one alone, and the next run's restore follows it.
func TestHeld(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	scope, err := hostScope([]string{"a.test", "b.test", "c.test", "d.test"})
	if err != nil {
		t.Fatal(err)
	}
	newF := func() *Frontier[string] {
		return New[string](Options{Scope: scope, Limits: DefaultLimits(), Delays: DelayPolicy{Default: time.Second},
			Robots: refusePrivate{}, Now: func() time.Time { return now }})
	}
	d := mustDB(t)
	f := newF()
	err = d.Update(func(tx *storage.Tx) error {
		for _, u := range []string{"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/1", "http://b.test/2"} {
			if _, err := f.Discover(tx, Candidate{URL: u, Via: "seed"}, now); err != nil {
				return err
			}
		}
		f.Meet("c.test", now)
		// c.test is paused with nothing queued: it holds nothing.
		for _, h := range []string{"a.test", "c.test"} {
			if !f.PauseHost(h, true, now) {
				t.Fatalf("PauseHost(%s) reports it unknown", h)
			}
		}
		for _, h := range []string{"a.test", "b.test", "c.test"} {
			if err := f.Save(tx, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Held{URLs: 3, Hosts: []string{"a.test"}}
	if got := f.Held(); !reflect.DeepEqual(got, want) {
		t.Errorf("live Held = %+v, want %+v", got, want)
	}
	checkRead := func(what string, want Held) {
		t.Helper()
		var got Held
		if err := d.View(func(tx *storage.Tx) (err error) { got, err = ReadHeld(tx); return err }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ReadHeld = %+v, want %+v", what, got, want)
		}
	}
	checkRead("after the run", want)

	// The crawl has stopped: pause and resume in the file.
	for i, c := range []struct {
		host  string
		pause bool
		known bool
	}{
		{"b.test", true, true},   // queued URLs and a record
		{"a.test", false, true},  // resumed
		{"d.test", true, false},  // in scope, never met: left alone
		{"c.test", false, true},  // a record, nothing queued
		{"b.test", true, true},   // paused twice: still paused
		{"e.test", false, false}, // out of scope and unknown
	} {
		var known bool
		err := d.Update(func(tx *storage.Tx) (err error) { known, err = PauseRecorded(tx, c.host, c.pause); return err })
		if err != nil || known != c.known {
			t.Errorf("step %d: PauseRecorded(%s, %v) = %v, %v; want %v", i, c.host, c.pause, known, err, c.known)
		}
	}
	d.View(func(tx *storage.Tx) error {
		for _, h := range []string{"d.test", "e.test"} {
			if tx.HasHost(h) {
				t.Errorf("PauseRecorded wrote a record for unknown host %s", h)
			}
		}
		return nil
	})
	want = Held{URLs: 2, Hosts: []string{"b.test"}}
	checkRead("after the offline pause and resume", want)

	g := newF() // the next run
	if err := d.Update(func(tx *storage.Tx) error { return g.Restore(tx, false, now) }); err != nil {
		t.Fatal(err)
	}
	if got := g.Held(); !reflect.DeepEqual(got, want) {
		t.Errorf("restored Held = %+v, want %+v", got, want)
	}
	if v := g.View("a.test", now); v.Stopped || !v.HasWork {
		t.Errorf("a.test resumed offline, restored: %+v", v)
	}
}

// TestHeldLogAttrs: the log line names the first few hosts and a resume
// command with them, or HOST... when there are too many to name.
func TestHeldLogAttrs(t *testing.T) {
	var many []string
	for i := range heldNames + 2 {
		many = append(many, fmt.Sprintf("h%d.test", i))
	}
	for _, c := range []struct {
		held   Held
		resume string
		want   []any
	}{
		{Held{URLs: 2, Hosts: []string{"a.test:8080"}}, "politecrawl host resume -c c.yaml",
			[]any{"held_urls", 2, "paused_hosts", 1, "hosts", "a.test:8080", "resume", "politecrawl host resume -c c.yaml a.test:8080"}},
		{Held{URLs: 5, Hosts: []string{"a.test", "b.test"}}, "",
			[]any{"held_urls", 5, "paused_hosts", 2, "hosts", "a.test, b.test"}},
		{Held{URLs: 9, Hosts: many}, "politecrawl host resume -c c.yaml",
			[]any{"held_urls", 9, "paused_hosts", 7, "hosts", "h0.test, h1.test, h2.test, h3.test, h4.test and 2 more",
				"resume", "politecrawl host resume -c c.yaml HOST..."}},
	} {
		if got := c.held.LogAttrs(c.resume); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v.LogAttrs(%q) = %v, want %v", c.held, c.resume, got, c.want)
		}
	}
}

// TestHeldSitemapOnly: a paused host whose only work is a sitemap not
// read yet (a CDN named in another host's robots.txt) is held work too,
// live and read from the file: it counted for nothing before, and each
// run ended on a plain "crawl drained" that said nothing of the pause.
func TestHeldSitemapOnly(t *testing.T) {
	f, d, now := cdnSitemapCrawl(t)
	err := d.Update(func(tx *storage.Tx) error {
		if !f.PauseHost("cdn.test", true, now) {
			t.Fatal("PauseHost(cdn.test) reports it unknown")
		}
		return f.Save(tx, "cdn.test")
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Held{Hosts: []string{"cdn.test"}}
	if got := f.Held(); !reflect.DeepEqual(got, want) || !got.Any() {
		t.Errorf("live Held = %+v, want %+v", got, want)
	}
	var got Held
	if err := d.View(func(tx *storage.Tx) (err error) { got, err = ReadHeld(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadHeld = %+v, want %+v", got, want)
	}
}

// TestPauseRecordedSitemapHost: a host the crawl met only as the home of
// a sitemap named in another host's robots.txt has no record yet, but the
// crawl knows it (a running one pauses it), so the offline pause does too
// instead of answering "unknown host".
func TestPauseRecordedSitemapHost(t *testing.T) {
	_, d, _ := cdnSitemapCrawl(t)
	var known bool
	if err := d.Update(func(tx *storage.Tx) (err error) { known, err = PauseRecorded(tx, "cdn.test", true); return err }); err != nil || !known {
		t.Fatalf("PauseRecorded(cdn.test) = %v, %v; want known", known, err)
	}
	var held Held
	d.View(func(tx *storage.Tx) (err error) { held, err = ReadHeld(tx); return err })
	if want := (Held{Hosts: []string{"cdn.test"}}); !reflect.DeepEqual(held, want) {
		t.Errorf("ReadHeld after the offline pause = %+v, want %+v", held, want)
	}
}

// cdnSitemapCrawl is a crawl whose only knowledge of cdn.test is a
// sitemap a.test's robots.txt names there, recorded in its state file.
func cdnSitemapCrawl(t *testing.T) (*Frontier[string], *storage.DB, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	scope, err := hostScope([]string{"a.test", "cdn.test"})
	if err != nil {
		t.Fatal(err)
	}
	f := New[string](Options{Scope: scope, Limits: DefaultLimits(), Delays: DelayPolicy{Default: time.Second},
		Sitemaps: SitemapPolicy{Use: true, MaxPerHost: 10, MaxRetries: 3},
		Robots:   refusePrivate{}, Now: func() time.Time { return now }})
	d := mustDB(t)
	err = d.Update(func(tx *storage.Tx) error {
		rules := robots.Parse([]byte("User-agent: *\nAllow: /\nSitemap: http://cdn.test/sm.xml\n"))
		return f.DeclareSitemaps(tx, "http://a.test", rules, now)
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, d, now
}
