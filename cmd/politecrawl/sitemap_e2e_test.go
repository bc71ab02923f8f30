package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
)

func TestSitemapsEndToEnd(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("sitemaps=%v", on), func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "c.yaml")
			os.WriteFile(cfg, []byte(fmt.Sprintf("seeds: [%q]\nstate: %q\nsitemaps: %v\npoliteness:\n  default_delay: 20ms\n  allow_fast: true\nnetwork:\n  allow_private: true\n",
				shop.URL("/"), filepath.Join(dir, "s.db"), on)), 0o600)
			runToEnd(t, cfg)
			recs := exportRecords(t, cfg)
			for _, p := range crawltest.Orphans[:2] {
				r, found := recs[shop.URL(p)]
				if found != on {
					t.Errorf("%s in export: %v, want %v", p, found, on)
				}
				if on && (r.State != "fetched" || r.DiscoveredVia != "sitemap" || r.Lastmod != "2026-02-03T00:00:00Z") {
					t.Errorf("%s: %+v", p, r)
				}
			}
			out, err := exec.Command(binary, "status", "-c", cfg, "--json").Output()
			var st status.Status
			if err != nil || json.Unmarshal(out, &st) != nil {
				t.Fatalf("status: %v %s", err, out)
			}
			var sm *status.Sitemaps
			for _, h := range st.PerHost {
				if h.Host == shop.Authority() {
					sm = h.Sitemaps
				}
			}
			if !on {
				if sm != nil {
					t.Errorf("sitemap stats with sitemaps off: %+v", sm)
				}
				return
			}
			// Read: the index, the gzip urlset, the cycle index and deep1-3.
			// Refused: the sitemap robots.txt disallows.
			if sm == nil || sm.Read != 6 || sm.Refused != 1 || sm.Pending != 0 || sm.Accepted < 4 ||
				sm.Dropped["outside the sitemap's directory and the declaring host"] != 1 || sm.Dropped["index nested deeper than 3"] != 1 {
				t.Errorf("sitemap stats: %+v", sm)
			}
			text, _ := exec.Command(binary, "status", "-c", cfg).Output()
			t.Logf("status:\n%s", text)
		})
	}
}
