package crawler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// TestImportRobotsPaceOfTheSlowerOrigin: a robots.txt record imported
// from another node spaces its host as any robots.txt result does, by the
// slowest of the host's origins (http and https share a host), the last
// good copy standing in for an unreachable file. The import set the pace
// of the imported origin alone: an imported allow-all http file dropped
// the host to the default delay under https's Crawl-delay.
func TestImportRobotsPaceOfTheSlowerOrigin(t *testing.T) {
	const host = "h.example"
	now := time.Now()
	parsed := func(body string) *storage.RobotsRecord {
		return &storage.RobotsRecord{FetchedAt: now.Add(-time.Hour), Outcome: "parsed", Status: 200, Body: []byte(body), ExpiresAt: now.Add(time.Hour)}
	}
	unavailable := &storage.RobotsRecord{FetchedAt: now, Outcome: "unavailable", Status: 404, ExpiresAt: now.Add(time.Hour)}
	goodCopy := &storage.RobotsRecord{FetchedAt: now.Add(-time.Hour), Outcome: "unreachable", Status: 503, Error: "HTTP 503", Attempts: 1,
		ExpiresAt: now.Add(time.Hour), GoodBody: []byte("User-agent: *\nCrawl-delay: 4\n"), GoodAt: now.Add(-2 * time.Hour)}
	tests := []struct {
		name     string
		local    map[string]*storage.RobotsRecord // in the state file at start
		imported map[string]*storage.RobotsRecord
		want     time.Duration
	}{
		{"imported allow-all beside a slower local file",
			map[string]*storage.RobotsRecord{"https://" + host: parsed("User-agent: *\nCrawl-delay: 3\n")},
			map[string]*storage.RobotsRecord{"http://" + host: unavailable}, 3 * time.Second},
		{"imported allow-all beside a local good copy",
			map[string]*storage.RobotsRecord{"https://" + host: goodCopy},
			map[string]*storage.RobotsRecord{"http://" + host: unavailable}, 4 * time.Second},
		{"imported slower file beside a local allow-all",
			map[string]*storage.RobotsRecord{"http://" + host: unavailable},
			map[string]*storage.RobotsRecord{"https://" + host: parsed("User-agent: *\nCrawl-delay: 3\n")}, 3 * time.Second},
		{"both origins imported at once",
			nil,
			map[string]*storage.RobotsRecord{"http://" + host: unavailable, "https://" + host: parsed("User-agent: *\nCrawl-delay: 2\n")}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
			defer db.Close()
			if err := db.Update(func(tx *storage.Tx) error {
				if err := tx.PutHost(host, storage.HostRecord{LastRequest: now.Add(-time.Minute)}); err != nil {
					return err
				}
				for origin, r := range tt.local {
					if err := tx.PutRobots(origin, r); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig()
			cfg.Node = newFakeNode()
			c, err := New(db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := runInBackground(t, c, 10*time.Second)
			defer stop()
			if err := c.node.ImportRobots(ctx, tt.imported); err != nil {
				t.Fatal(err)
			}
			var iv time.Duration
			if err := c.do(ctx, func() { iv = c.front.Interval(host) }); err != nil {
				t.Fatal(err)
			}
			if iv != tt.want {
				t.Errorf("interval after the import %v, want %v (the slowest origin's)", iv, tt.want)
			}
		})
	}
}
