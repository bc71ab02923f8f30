package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// docsSite is shaped like the Python documentation: sections /howto/,
// /tutorial/, /library/, reST sources under /_sources/ (*.txt), images, a
// zip, every page linking to the others. It returns the site and the
// paths of its pages.
func docsSite(t *testing.T) (*crawltest.Web, *crawltest.Host, []string) {
	t.Helper()
	var paths []string
	for _, sec := range []string{"howto", "tutorial", "library"} {
		for i := range 4 {
			paths = append(paths, fmt.Sprintf("/3/%s/page%d.html", sec, i))
		}
		paths = append(paths, "/3/"+sec+"/index.html", "/3/_sources/"+sec+"/index.rst.txt")
	}
	paths = append(paths, "/3/howto/notes.txt", "/3/_images/logo.png", "/3/download/docs.zip", "/3/index.html")
	var links strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&links, `<a href="%s">%s</a> `, p, p)
	}
	pages := map[string]*crawltest.Page{"/robots.txt": {Body: "User-agent: *\nDisallow: /3/library/page3.html\n"}}
	for _, p := range paths {
		switch {
		case strings.HasSuffix(p, ".html"):
			pages[p] = &crawltest.Page{Body: "<!DOCTYPE html><html><body>" + links.String() + "</body></html>",
				Header: map[string]string{"Content-Type": "text/html"}}
		case strings.HasSuffix(p, ".png"):
			pages[p] = &crawltest.Page{Body: "\x89PNG", Header: map[string]string{"Content-Type": "image/png"}}
		default:
			pages[p] = &crawltest.Page{Body: "text", Header: map[string]string{"Content-Type": "text/plain"}}
		}
	}
	web := crawltest.NewWeb()
	return web, web.AddHost("docs", pages), paths
}

// TestCrawlRestrictedToTwoSections crawls the docs site restricted to
// /howto/ and /tutorial/ with *.txt and /_sources/ excluded, and checks
// the server's access log: every request (robots.txt aside) is inside the
// rules, and every linked page inside them was fetched.
func TestCrawlRestrictedToTwoSections(t *testing.T) {
	web, docs, paths := docsSite(t)
	defer web.Close()
	cfg := testConfig(docs.URL("/3/index.html"), docs.URL("/3/howto/index.html"))
	cfg.DefaultDelay = 5 * time.Millisecond
	cfg.Rules = scope.Config{
		Prefixes:        []string{docs.URL("/3/howto/"), docs.URL("/3/tutorial/")},
		Exclude:         []string{docs.URL("/3/_sources/")},
		ExcludePatterns: []string{`\.txt$`},
		SkipExtensions:  []string{"png", "zip"},
	}
	inside := func(p string) bool {
		return (strings.HasPrefix(p, "/3/howto/") || strings.HasPrefix(p, "/3/tutorial/")) &&
			!strings.HasSuffix(p, ".txt") && !strings.HasPrefix(p, "/3/_sources/")
	}
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("Run: %v (ctx %v)", err, ctx.Err())
	}
	requested := map[string]int{}
	for _, r := range docs.Log() {
		requested[r.Path]++
		if r.Path != "/robots.txt" && !inside(r.Path) {
			t.Errorf("requested %s, outside the rules", r.Path)
		}
	}
	for _, p := range paths {
		if inside(p) && requested[p] != 1 {
			t.Errorf("%s is inside the rules and linked: requested %d times, want 1", p, requested[p])
		}
	}
	// The seed outside the rules is out of scope: not recorded, not fetched.
	recs := records(t, db)
	if r := recs[docs.URL("/3/index.html")]; r != nil {
		t.Errorf("out-of-scope seed recorded: %+v", r)
	}
}

// TestReloadedRuleSkipsQueuedURLs: a URL queued under the old rules and
// excluded by a reload is recorded skipped with the rule, never fetched.
func TestReloadedRuleSkipsQueuedURLs(t *testing.T) {
	web, docs, _ := docsSite(t)
	defer web.Close()
	cfg := testConfig(docs.URL("/3/howto/index.html"))
	cfg.Rules = scope.Config{Prefixes: []string{docs.URL("/3/howto/")}}
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	// Queue the section's pages without fetching: seeds, as a run would.
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for i := range 4 {
		urls = append(urls, docs.URL(fmt.Sprintf("/3/howto/page%d.html", i)))
	}
	if _, err := c.AddSeedsOffline(urls); err != nil {
		t.Fatal(err)
	}
	// The reload: page2 is excluded now.
	cfg.Rules.ExcludePatterns = []string{`page2`}
	cfg.DefaultDelay = 5 * time.Millisecond
	runFor(t, db, cfg, 20*time.Second, nil)
	if n := docs.Count("/3/howto/page2.html"); n != 0 {
		t.Errorf("page2 fetched %d times after a rule excluded it", n)
	}
	r := records(t, db)[docs.URL("/3/howto/page2.html")]
	if r == nil || r.State != storage.Skipped || !strings.Contains(r.Error, "scope.exclude_patterns[0]") {
		t.Errorf("page2's record = %+v, want skipped naming scope.exclude_patterns[0]", r)
	}
	if docs.Count("/3/howto/page1.html") != 1 {
		t.Errorf("page1 (still in scope) fetched %d times, want 1", docs.Count("/3/howto/page1.html"))
	}
}

// TestAcceptTypesAndBodiesPerHost: with accept_types text/html, the
// image, zip and text files are requested once, cut after their headers
// and recorded skipped with their type; a host whose override says
// store_bodies: false keeps none of its pages' bodies.
func TestAcceptTypesAndBodiesPerHost(t *testing.T) {
	web, docs, _ := docsSite(t)
	defer web.Close()
	cfg := testConfig(docs.URL("/3/index.html"))
	cfg.DefaultDelay = 5 * time.Millisecond
	cfg.Fetch.AcceptTypes = []string{"text/html"}
	no := false
	cfg.Hosts = map[string]frontier.Override{"127.0.0.1": {StoreBodies: &no}}
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	runFor(t, db, cfg, 30*time.Second, nil)
	recs := records(t, db)
	for path, ct := range map[string]string{"/3/_images/logo.png": "image/png", "/3/download/docs.zip": "text/plain", "/3/howto/notes.txt": "text/plain"} {
		r := recs[docs.URL(path)]
		want := fmt.Sprintf("scope.accept_types: content type %q is not accepted", ct)
		if r == nil || r.State != storage.Skipped || r.Error != want || docs.Count(path) != 1 {
			t.Errorf("%s: record %+v, requested %d times; want skipped %q after one request", path, r, docs.Count(path), want)
		}
	}
	page := docs.URL("/3/howto/page1.html")
	if r := recs[page]; r == nil || r.State != storage.Fetched {
		t.Fatalf("%s: %+v, want fetched", page, r)
	}
	db.View(func(tx *storage.Tx) error {
		if b, _ := tx.Body(page); b != nil {
			t.Errorf("%s: body kept (%d bytes) though its host's store_bodies is false", page, len(b))
		}
		return nil
	})
}

// TestWARCPerHost: a host whose override says warc: false has none of its
// exchanges archived; the others are, as before.
func TestWARCPerHost(t *testing.T) {
	web, docs, _ := docsSite(t)
	defer web.Close()
	other := web.AddHost("other", map[string]*crawltest.Page{"/": {Body: `<a href="/x">x</a>`}, "/x": {Body: "x"}})
	cfg := testConfig(docs.URL("/3/howto/index.html"), other.URL("/"))
	cfg.DefaultDelay = 5 * time.Millisecond
	cfg.Scope = []string{docs.Authority(), other.Authority()}
	no := false
	cfg.Hosts = map[string]frontier.Override{other.Authority(): {WARC: &no}}
	dir := t.TempDir()
	cfg.Archive = openArchive(t, dir)
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	runFor(t, db, cfg, 30*time.Second, nil)
	if err := cfg.Archive.Close(); err != nil {
		t.Fatal(err)
	}
	if other.Count("/x") != 1 {
		t.Fatalf("other's /x requested %d times, want 1", other.Count("/x"))
	}
	archived := map[string]int{}
	for _, e := range scanArchive(t, dir) {
		if e.Type() == "response" {
			archived[urlnorm.Authority(e.Header.Get("WARC-Target-URI"))]++
		}
	}
	if archived[other.Authority()] != 0 || archived[docs.Authority()] == 0 {
		t.Errorf("response records per host: %v; want none for %s (warc: false), some for %s", archived, other.Authority(), docs.Authority())
	}
}

// store_bodies turned off for a host by a reload: a page that changes
// afterwards must not keep the body of its old fetch beside the new record.
func TestStoreBodiesOffDropsStaleBody(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/p">s</a>`},
		"/p":          {Body: `<title>Old</title>old body`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 300*time.Millisecond
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, ctx, "first fetch", func() bool { return h.Count("/p") >= 1 })
	no := false
	if _, err := c.Reconfigure(ctx, Live{Seeds: cfg.Seeds, Scope: cfg.Scope, DefaultDelay: cfg.DefaultDelay, MaxDelay: cfg.MaxDelay, Workers: cfg.Workers,
		Hosts: map[string]frontier.Override{h.Authority(): {StoreBodies: &no}}}); err != nil {
		t.Fatal(err)
	}
	h.SetPage("/p", &crawltest.Page{Body: `<title>New</title>new body`})
	n := h.Count("/p")
	waitFor(t, ctx, "two rechecks", func() bool { return h.Count("/p") >= n+2 })
	cancel()
	<-done
	db.View(func(tx *storage.Tx) error {
		b, _ := tx.Body(h.URL("/p"))
		rec, _ := tx.GetURL(h.URL("/p"))
		if rec.Title != "New" {
			t.Errorf("record title %q: the changed page was not recorded", rec.Title)
		}
		if len(b) > 0 {
			t.Errorf("store_bodies is off for the host and the record is of the new page, but a body is stored: %q", b)
		}
		return nil
	})
}

// A host's store_bodies: false is lifted by a reload: the page's next
// recheck is a full GET (no validators: a 304 would keep it bodiless for
// good), and the later ones are 304s again.
func TestStoreBodiesBackOnRefetchesBody(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/same">s</a>`, ETag: `"root-1"`},
		"/same":       {Body: `<title>Same</title>`, ETag: `"same-1"`},
	})
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(h.URL("/"))
	cfg.DefaultDelay, cfg.Recrawl = 20*time.Millisecond, 300*time.Millisecond
	no := false
	cfg.Hosts = map[string]frontier.Override{h.Authority(): {StoreBodies: &no}}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, ctx, "first fetch", func() bool { return h.Count("/same") >= 1 })
	if _, err := c.Reconfigure(ctx, Live{Seeds: cfg.Seeds, Scope: cfg.Scope, DefaultDelay: cfg.DefaultDelay, MaxDelay: cfg.MaxDelay, Workers: cfg.Workers}); err != nil {
		t.Fatal(err)
	}
	n := h.Count("/same")
	waitFor(t, ctx, "rechecks after the reload", func() bool { return h.Count("/same") >= n+2 && statusSeen(h, "/same", 304) })
	cancel()
	<-done
	db.View(func(tx *storage.Tx) error {
		b, _ := tx.Body(h.URL("/same"))
		if string(b) != `<title>Same</title>` {
			t.Errorf("store_bodies is on again for the host, the page was rechecked %d times, and its stored body is %q", h.Count("/same"), b)
		}
		return nil
	})
}

// A hosts: min_delay added across a restart is in force after it, with
// the restored robots.txt still winning when slower; the first request
// after the restart still waits the interval in force before the stop
// since the last request before it.
func TestOverrideAfterRestart(t *testing.T) {
	for _, tc := range []struct {
		name, robots string
		want         time.Duration
	}{
		{"override lowers the default", "User-agent: *\nAllow: /\n", 50 * time.Millisecond},
		{"robots.txt Crawl-delay still wins", "User-agent: *\nCrawl-delay: 1\nAllow: /\n", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := crawltest.NewWeb()
			defer w.Close()
			h := w.AddHost("h", map[string]*crawltest.Page{
				"/robots.txt": {Body: tc.robots},
				"/":           {Body: `<a href="/p">s</a>`},
				"/p":          {Body: `p`},
				"/q":          {Body: `q`},
			})
			path := filepath.Join(t.TempDir(), "s.db")
			db := openDB(t, path)
			cfg := testConfig(h.URL("/"))
			cfg.DefaultDelay = 300 * time.Millisecond
			c, err := New(db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := c.Run(ctx); err != nil {
				t.Fatal(err)
			}
			db.Close()
			before := h.Log()
			db = openDB(t, path)
			defer db.Close()
			cfg.Hosts = map[string]frontier.Override{h.Authority(): {MinDelay: 50 * time.Millisecond}}
			cfg.Seeds = append(cfg.Seeds, h.URL("/q"))
			c2, err := New(db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if iv := c2.front.Interval(h.Authority()); iv != tc.want {
				t.Errorf("host spaced by %v after the restart, want %v", iv, tc.want)
			}
			if err := c2.Run(ctx); err != nil {
				t.Fatal(err)
			}
			after := h.Log()[len(before):]
			if len(after) == 0 || after[0].Path != "/q" {
				t.Fatalf("requests after the restart: %v, want /q first", after)
			}
			gap := after[0].Arrived.Sub(before[len(before)-1].Arrived)
			if floor := max(cfg.DefaultDelay, tc.want); gap < floor-crawltest.Slack {
				t.Errorf("first request after the restart %v after the last one before it, want at least %v (the interval before the stop)", gap, floor)
			}
		})
	}
}
