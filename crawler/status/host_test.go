package status

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// TestReadHost: a host's page: its robots.txt with the lines of the group
// that applies to us, its latest fetches newest first, its queue head,
// its refused URLs with reasons, and nothing of another host.
func TestReadHost(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := db.Update(func(tx *storage.Tx) error {
		for _, r := range []*storage.URLRecord{
			{URL: "http://a.test/old", State: storage.Fetched, Status: 200, FetchedAt: t0, Title: "Old"},
			{URL: "http://a.test/new", State: storage.Fetched, Status: 200, FetchedAt: t0.Add(time.Minute), Title: "New"},
			{URL: "http://a.test/private/x", State: storage.Disallowed, Error: "robots.txt: Disallow: /private/"},
			{URL: "http://a.test/q", State: storage.Queued},
			{URL: "http://a.testing/other", State: storage.Fetched, FetchedAt: t0},
		} {
			r.Links = []string{}
			if err := tx.PutURL(r, ""); err != nil {
				return err
			}
		}
		if err := tx.Enqueue("a.test", "http://a.test/q"); err != nil {
			return err
		}
		return tx.PutRobots("http://a.test", &storage.RobotsRecord{Outcome: "parsed", Status: 200, FetchedAt: t0,
			Body: []byte("User-agent: *\nDisallow: /private/\n\nUser-agent: politecrawl\nDisallow: /private/\nCrawl-delay: 2\n")})
	}); err != nil {
		t.Fatal(err)
	}
	d, err := ReadHost(db, "a.test", "politecrawl")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Recent) != 2 || d.Recent[0].Title != "New" || d.Recent[1].Title != "Old" {
		t.Errorf("recent %+v, want New then Old", d.Recent)
	}
	if len(d.Head) != 1 || d.Head[0] != "http://a.test/q" {
		t.Errorf("head %v", d.Head)
	}
	if len(d.Refused) != 1 || d.Refused[0].Error != "robots.txt: Disallow: /private/" {
		t.Errorf("refused %+v", d.Refused)
	}
	if len(d.Robots) != 1 || d.Robots[0].Scope != "agent" || len(d.Robots[0].Lines) != 6 {
		t.Fatalf("robots %+v", d.Robots)
	}
	for _, l := range d.Robots[0].Lines {
		if want := l.N == 5 || l.N == 6; l.Applies != want {
			t.Errorf("line %d %q: applies %v, want %v", l.N, l.Text, l.Applies, want)
		}
	}
}
