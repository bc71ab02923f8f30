package crawler

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/archive/archivetest"
	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/storage"
)

func openArchive(t *testing.T, dir string) *archive.Writer {
	t.Helper()
	w, err := archive.Open(archive.Options{Dir: dir, Compress: true, Prefix: "politecrawl"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// scanArchive reads every record of dir with our scanner.
func scanArchive(t *testing.T, dir string) []archive.Entry {
	t.Helper()
	names, err := archive.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []archive.Entry
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		_, err = archive.Scan(f, func(e archive.Entry) error { out = append(out, e); return nil })
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkAgainstWarcio compares our CDXJ index of dir with warcio.js's, line
// by line, and returns warcio's records.
func checkAgainstWarcio(t *testing.T, dir string) []archivetest.Record {
	t.Helper()
	var ours bytes.Buffer
	if err := archive.Index(dir, &ours); err != nil {
		t.Fatal(err)
	}
	theirs := archivetest.CDXJ(t, dir)
	got := strings.Split(strings.TrimSpace(ours.String()), "\n")
	if len(got) != len(theirs) {
		t.Errorf("our index has %d lines, warcio's %d", len(got), len(theirs))
	}
	for i := range min(len(got), len(theirs)) {
		if got[i] != theirs[i] {
			t.Errorf("index line %d:\nours   %s\nwarcio %s", i, got[i], theirs[i])
		}
	}
	return archivetest.Records(t, dir)
}

// TestArchiveStandardWeb archives a crawl of the whole test web: every
// request the servers answered is a request and a response record, every
// page also a metadata record, warcio.js agrees with our index, and every
// URL the state file calls fetched has its records.
func TestArchiveStandardWeb(t *testing.T) {
	web := crawltest.Standard()
	defer web.Close()
	dir := t.TempDir()
	w := openArchive(t, dir)
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(web.Host("main").URL("/"))
	for _, h := range web.Hosts() {
		cfg.Scope = append(cfg.Scope, h.Authority())
	}
	cfg.Archive = w
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	requests, pages := 0, 0
	for _, h := range web.Hosts() {
		for _, r := range h.Log() {
			requests++
			if r.Path != "/robots.txt" && !strings.HasPrefix(r.Path, "/robots-") {
				pages++
			}
		}
	}
	archived := map[string]bool{}
	for _, e := range scanArchive(t, dir) {
		if e.Type() == archive.TypeResponse || e.Type() == archive.TypeRevisit {
			archived[e.Header.Get("WARC-Target-URI")] = true
		}
	}
	for url, r := range records(t, db) {
		if r.State == storage.Fetched && !archived[url] {
			t.Errorf("%s is fetched in the state file but has no response record", url)
		}
	}
	// Last, as it skips without node (by hand):
	n := archivetest.Count(checkAgainstWarcio(t, dir))
	if n["request"] != requests || n["response"]+n["revisit"] != requests || n["metadata"] != pages || n["warcinfo"] != 1 {
		t.Errorf("warcio counts %v; the servers answered %d requests, %d of them for pages", n, requests, pages)
	}
}

// TestArchiveRecrawlRevisits crawls a site, then rechecks every page two
// hours later (a new Crawler and Writer on the same files, as after a
// restart): a 304 becomes a server-not-modified revisit (with the
// original's payload digest), an unchanged
// body an identical-payload revisit found through the digest index kept
// in the state file, a noarchive page has only its metadata record.
func TestArchiveRecrawlRevisits(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	h := web.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/": {Body: `<a href="/same">s</a><a href="/dup1">1</a><a href="/dup2">2</a><a href="/noarchive">n</a>` +
			`<a href="/noindex">i</a><a href="/redirect">r</a><a href="/gone">g</a>`},
		"/same":      {Body: `<title>Same</title>`, ETag: `"s1"`},
		"/dup1":      {Body: `<title>Twin</title>`},
		"/dup2":      {Body: `<title>Twin</title>`},
		"/noarchive": {Body: `<meta name="robots" content="noarchive"><title>Private</title>`},
		"/noindex":   {Body: `<title>NI</title>`, Header: map[string]string{"X-Robots-Tag": "noindex"}},
		"/redirect":  {Status: 301, Header: map[string]string{"Location": "/target"}},
		"/target":    {Body: `<title>Target</title>`},
		"/gone":      {Status: 404, Body: "gone"},
	})
	pages := []string{"/", "/same", "/dup1", "/dup2", "/noarchive", "/noindex", "/redirect", "/target", "/gone"}
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "s.db")
	round := func(shift time.Duration) map[string]int {
		t.Helper()
		db := openDB(t, state)
		defer db.Close()
		w := openArchive(t, dir)
		var mu sync.Mutex
		seen := map[string]bool{}
		done := make(chan struct{})
		cfg := testConfig(h.URL("/"))
		cfg.DefaultDelay, cfg.Recrawl, cfg.Archive = 10*time.Millisecond, time.Hour, w
		cfg.Now = func() time.Time { return time.Now().Add(shift) }
		cfg.Observe = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			if e.State == string(storage.Fetched) && !seen[e.URL] {
				seen[e.URL] = true
				if len(seen) == len(pages) {
					close(done)
				}
			}
		}
		c, err := New(db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- c.Run(ctx) }()
		select {
		case <-done:
		case err := <-errc:
			t.Fatalf("run ended early: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out; fetched %v", seen)
		}
		cancel()
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, e := range scanArchive(t, dir) {
			n[e.Type()+" "+e.Header.Get("WARC-Profile")]++
		}
		return n
	}
	const (
		req      = "request "
		resp     = "response "
		meta     = "metadata "
		same     = "revisit " + archive.ProfileIdenticalPayload
		notMod   = "revisit " + archive.ProfileNotModified
		warcinfo = "warcinfo "
	)
	// First round: robots.txt and 9 pages; /dup2 repeats /dup1's payload;
	// /noarchive has a metadata record only.
	want := map[string]int{warcinfo: 1, req: 9, resp: 8, same: 1, meta: 9}
	if got := round(0); !equalCounts(got, want) {
		t.Errorf("first round: %v, want %v", got, want)
	}
	// Second round, every page due: /same answers 304; the redirect's
	// empty body is stored again; every other archived body is known.
	want = map[string]int{warcinfo: 2, req: 9 + 8, resp: 8 + 1, same: 1 + 6, notMod: 1, meta: 9 + 9}
	if got := round(2 * time.Hour); !equalCounts(got, want) {
		t.Errorf("second round: %v, want %v", got, want)
	}
	if n := h.Count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times", n)
	}
	var sameDigest, notModDigest string
	for _, e := range scanArchive(t, dir) {
		u := e.Header.Get("WARC-Target-URI")
		switch {
		case u == h.URL("/same") && e.Type() == archive.TypeResponse:
			sameDigest = e.Header.Get("WARC-Payload-Digest")
		case e.Header.Get("WARC-Profile") == archive.ProfileNotModified:
			notModDigest = e.Header.Get("WARC-Payload-Digest")
		}
		switch {
		case strings.HasSuffix(u, "/noarchive") && e.Type() != archive.TypeMetadata:
			t.Errorf("noarchive page has a %s record", e.Type())
		case strings.HasSuffix(u, "/noarchive") && !bytes.Contains(e.Block, []byte("noarchive: ")):
			t.Errorf("noarchive metadata does not say why: %q", e.Block)
		case strings.HasSuffix(u, "/noindex") && e.Type() == archive.TypeMetadata && !bytes.Contains(e.Block, []byte("noindex: ")):
			t.Errorf("noindex page not flagged: %q", e.Block)
		case strings.HasSuffix(u, "/") && e.Type() == archive.TypeMetadata && !bytes.Contains(e.Block, []byte("outlink: "+h.URL("/dup1"))):
			t.Errorf("home page metadata lacks its outlinks: %q", e.Block)
		}
	}
	// The 304's revisit carries the payload digest of the capture it
	// refers to, kept in the state file across the restart.
	if sameDigest == "" || notModDigest != sameDigest {
		t.Errorf("server-not-modified revisit of /same has payload digest %q, its original %q", notModDigest, sameDigest)
	}
	recs := checkAgainstWarcio(t, dir)
	if n := archivetest.Count(recs); n["revisit"] != 8 || n["response"] != 9 {
		t.Errorf("warcio read %v", n)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestArchiveSitemaps: sitemap files, gzip ones included, are archived
// like any exchange: every request the server answered has a request and
// a response record, byte for byte what crossed the connection.
func TestArchiveSitemaps(t *testing.T) {
	web := crawltest.SitemapWeb()
	defer web.Close()
	shop := web.Host("shop")
	dir := t.TempDir()
	w := openArchive(t, dir)
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	crawlShop(t, web, db, true, func(c *Config) { c.Archive = w })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, e := range scanArchive(t, dir) {
		if e.Type() == archive.TypeResponse || e.Type() == archive.TypeRevisit {
			got[strings.TrimPrefix(e.Header.Get("WARC-Target-URI"), shop.URL(""))]++
		}
		if strings.HasSuffix(e.Header.Get("WARC-Target-URI"), ".xml.gz") && e.Type() == archive.TypeResponse &&
			!bytes.Contains(e.Block, []byte(crawltest.Gzip(""))[:3]) {
			t.Errorf("the gzip sitemap must be archived compressed, as sent")
		}
	}
	for _, p := range shop.Paths() {
		if got[p] != shop.Count(p) {
			t.Errorf("%s: %d response records for %d requests", p, got[p], shop.Count(p))
		}
	}
	if got["/sitemap_index.xml"] != 1 || got["/sitemaps/products.xml.gz"] != 1 {
		t.Errorf("sitemaps not archived: %v", got)
	}
	checkAgainstWarcio(t, dir)
}

// BenchmarkCrawlWARC is BenchmarkCrawl with WARC output on (gzip, a sync
// before every commit): the difference is the cost of archiving.
func BenchmarkCrawlWARC(b *testing.B) {
	const hosts, pages = 50, 200
	w := crawltest.NewWeb()
	defer w.Close()
	var names, scope []string
	for i := range hosts {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i, n := range names {
		h := w.AddTree(n, pages, "User-agent: *\nDisallow: /private/\n", 0, names[(i+1)%hosts])
		scope = append(scope, h.Authority())
	}
	var total time.Duration
	for b.Loop() {
		db, err := storage.Open(filepath.Join(b.TempDir(), "bench.db"), storage.Options{NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		arc, err := archive.Open(archive.Options{Dir: b.TempDir(), Compress: true})
		if err != nil {
			b.Fatal(err)
		}
		cfg := testConfig(w.Host(names[0]).URL("/"))
		cfg.Scope, cfg.DefaultDelay, cfg.Workers, cfg.Archive = scope, 0, 32, arc
		cfg.LatencyFactor = 0 // the crawl's own speed, as BenchmarkCrawl
		c, err := New(db, cfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := c.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		if err := arc.Close(); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		db.Close()
	}
	b.ReportMetric(float64(hosts*pages*b.N)/total.Seconds(), "pages/s")
}

// TestPageMetadataDecision: the metadata record's decision says what the
// crawl did with the exchange, a 304 whose signals now refuse the
// declared purpose included (its stored body goes; "record kept" was
// written for it before).
func TestPageMetadataDecision(t *testing.T) {
	refusal := &contentuse.Refusal{Use: "train-ai", Source: "header Content-Usage", Purpose: "ai-train"}
	for _, tc := range []struct {
		name string
		r    result
		want string
	}{
		{"no response", result{}, "no response"},
		{"server error", result{page: &fetch.Response{Status: 503}}, "retry later (HTTP 503); the host backs off"},
		{"304", result{page: &fetch.Response{Status: 304}}, "not modified since the last fetch: record kept"},
		{"304 refused", result{page: &fetch.Response{Status: 304}, refusal: refusal},
			"not modified since the last fetch; content-use: train-ai=no (header Content-Usage) refuses purpose ai-train: not stored: the body stored earlier is dropped"},
		{"redirect", result{page: &fetch.Response{Status: 301, Location: "http://h/x"}}, "redirect to http://h/x: followed as a URL of its own"},
		{"200", result{page: &fetch.Response{Status: 200}}, "fetched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			for _, f := range pageMetadata(&tc.r) {
				if f.Name == "decision" {
					got = f.Value
				}
			}
			if got != tc.want {
				t.Errorf("decision %q, want %q", got, tc.want)
			}
		})
	}
}
