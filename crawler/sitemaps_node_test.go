package crawler

import (
	"context"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/frontier"
)

// TestNodeSitemapCountsDiverted: a cluster node admits nothing itself, so
// the in-scope URLs a sitemap lists are handed to the nodes owning their
// hosts; its record counts them as such, not as refused (every one was
// counted "refused by a crawl limit, trap guard or robots.txt").
func TestNodeSitemapCountsDiverted(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	a := w.AddHost("a", map[string]*crawltest.Page{"/": {Body: "<html>a</html>"}})
	a.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nAllow: /\nSitemap: " + a.URL("/sitemap.txt") + "\n"})
	a.SetPage("/sitemap.txt", &crawltest.Page{Body: a.URL("/1") + "\n" + a.URL("/2") + "\n" + a.URL("/3") + "\nhttp://elsewhere.example/x\n",
		Header: map[string]string{"Content-Type": "text/plain"}})
	node := newFakeNode(a.Authority())
	node.holds[a.URL("/")] = true
	cfg := testConfig()
	cfg.Sitemaps = true
	c, db := nodeCrawl(t, node, cfg, a.Authority())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	if _, err := c.node.Admit(ctx, []frontier.Candidate{{URL: a.URL("/"), Via: "seed"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the sitemap read", func() bool {
		r := sitemapRecords(t, db)[a.URL("/sitemap.txt")]
		return r != nil && r.State == frontier.SitemapRead
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r := sitemapRecords(t, db)[a.URL("/sitemap.txt")]
	if r.Listed != 4 || r.Diverted != 3 || r.Accepted != 0 || r.Dropped[frontier.DropRefused] != 0 || r.Dropped[frontier.DropOutside] != 1 {
		t.Errorf("sitemap record: %d listed, %d accepted, %d diverted, dropped %v; want 4 listed, 3 diverted, 1 outside the sitemap's host",
			r.Listed, r.Accepted, r.Diverted, r.Dropped)
	}
	if d := node.divertedURLs(); !d[a.URL("/1")] || !d[a.URL("/2")] || !d[a.URL("/3")] {
		t.Errorf("diverted %v: want the three listed URLs", d)
	}
}
