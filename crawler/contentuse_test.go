package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/storage"
)

// useSite is a loopback site that publishes every kind of content-use
// signal: Content-Signal and Content-Usage lines in robots.txt (one
// scoped to /private/), a Content-Usage header on /header, a noai meta tag
// on /meta, a tdmrep.json reserving /tdm/*. It counts the requests per path.
type useSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

const useRobots = "User-agent: *\n" +
	"Allow: /\n" +
	"Content-Signal: search=yes, ai-input=no\n" +
	"Content-Signal: /private/ ai-train=no\n" +
	"Content-Usage: /gen/ train-genai=n, new-label=n\n"

func newUseSite(t *testing.T) *useSite {
	s := &useSite{hits: map[string]int{}}
	page := func(w http.ResponseWriter, title, head string) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title>%s</head><body>%s</body></html>", title, head, title)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, useRobots)
		case "/.well-known/tdmrep.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `[{"location": "/tdm/*", "tdm-reservation": 1, "tdm-policy": "https://example.test/policy"}]`)
		case "/":
			links := ""
			for _, l := range []string{"/private/a", "/header", "/meta", "/tdm/x", "/open", "/gen/x"} {
				links += fmt.Sprintf(`<a href="%s">%s</a>`, l, l)
			}
			page(w, "home", "")
			fmt.Fprint(w, links)
		case "/header":
			w.Header().Set("Content-Usage", "train-ai=n")
			page(w, "header", "")
		case "/meta":
			page(w, "meta", `<meta name="robots" content="noai">`)
		case "/private/a", "/tdm/x", "/open", "/gen/x":
			page(w, strings.Trim(r.URL.Path, "/"), "")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *useSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// crawlUseSite crawls a fresh useSite with purpose into a state file and a
// WARC directory, and returns the site, the URL records and the WARC
// records.
func crawlUseSite(t *testing.T, purpose string) (*useSite, map[string]*storage.URLRecord, []archive.Entry, *storage.DB) {
	t.Helper()
	site := newUseSite(t)
	dir := t.TempDir()
	w := openArchive(t, dir)
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	t.Cleanup(func() { db.Close() })
	cfg := testConfig(site.URL + "/")
	cfg.Purpose, cfg.Archive = purpose, w
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return site, records(t, db), scanArchive(t, dir), db
}

// warcByURL groups WARC records by target URI and type.
func warcByURL(entries []archive.Entry) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, e := range entries {
		u := e.Header.Get("WARC-Target-URI")
		if out[u] == nil {
			out[u] = map[string]string{}
		}
		out[u][e.Type()] = string(e.Block)
	}
	return out
}

type useWant struct {
	path      string
	state     storage.State
	requested bool
	stored    bool              // a body in the state file and a WARC response record
	uses      map[string]string // use -> "value|source prefix" as the record keeps it
	errHas    string
}

func checkUseSite(t *testing.T, site *useSite, recs map[string]*storage.URLRecord, warc map[string]map[string]string, db *storage.DB, wants []useWant) {
	t.Helper()
	for _, w := range wants {
		url := site.URL + w.path
		r := recs[url]
		if r == nil {
			t.Errorf("%s: no record", w.path)
			continue
		}
		if r.State != w.state || !strings.Contains(r.Error, w.errHas) {
			t.Errorf("%s: %s %q, want %s with an error holding %q", w.path, r.State, r.Error, w.state, w.errHas)
		}
		if got := site.count(w.path) > 0; got != w.requested {
			t.Errorf("%s: requested %v, want %v", w.path, got, w.requested)
		}
		for use, want := range w.uses {
			value, source, _ := strings.Cut(want, "|")
			got, ok := r.ContentUse[use]
			if value == "unspecified" {
				// Not kept: the export shows it unspecified.
				if ok {
					t.Errorf("%s: content_use %s = %+v kept, want it absent (unspecified)", w.path, use, got)
				}
				continue
			}
			if got.Value != value || !strings.HasPrefix(got.Source, source) {
				t.Errorf("%s: content_use %s = %+v, want %s from %q...", w.path, use, got, value, source)
			}
		}
		if !w.requested {
			continue
		}
		var body []byte
		db.View(func(tx *storage.Tx) error { body, _ = tx.Body(url); return nil })
		_, response := warc[url][archive.TypeResponse]
		if (len(body) > 0) != w.stored || response != w.stored || (r.Title != "") != w.stored {
			t.Errorf("%s: body %d bytes, response record %v, title %q; want stored %v", w.path, len(body), response, r.Title, w.stored)
		}
	}
}

// TestContentUseDeclaredPurpose crawls the site as an AI-training crawl:
// URLs its robots.txt or tdmrep.json reserve are never requested and are
// recorded disallowed with the signal; responses whose header or meta tag
// says no are fetched (their links followed) but not stored; the rest are
// fetched and stored, every record saying what each use may be and why.
func TestContentUseDeclaredPurpose(t *testing.T) {
	site, recs, entries, db := crawlUseSite(t, "ai-train")
	warc := warcByURL(entries)
	checkUseSite(t, site, recs, warc, db, []useWant{
		// Refused before a request, they keep the signals as a fetched
		// page does (content_use was {}: the signal only in error).
		{path: "/private/a", state: storage.Disallowed,
			errHas: "content-use: ai-train=no (robots.txt line 4: Content-Signal /private/) refuses purpose ai-train",
			uses:   map[string]string{"ai-train": "no|robots.txt line 4: Content-Signal /private/", "bots": "unspecified|"}},
		{path: "/tdm/x", state: storage.Disallowed,
			errHas: "content-use: ai-train=no (tdmrep.json rule 1 (/tdm/*) (tdm-policy https://example.test/policy)) refuses purpose ai-train",
			uses:   map[string]string{"ai-train": "no|tdmrep.json rule 1", "search": "yes|robots.txt line 3"}},
		{path: "/header", state: storage.Fetched, requested: true,
			errHas: "content-use: ai-train=no (header Content-Usage) refuses purpose ai-train: not stored",
			uses:   map[string]string{"ai-train": "no|header Content-Usage", "search": "yes|robots.txt line 3: Content-Signal"}},
		{path: "/meta", state: storage.Fetched, requested: true,
			errHas: "content-use: ai-train=no (meta robots) refuses purpose ai-train: not stored",
			uses:   map[string]string{"ai-train": "no|meta robots"}},
		{path: "/open", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"search": "yes|robots.txt line 3", "ai-input": "no|robots.txt line 3",
				"ai-train": "unspecified|", "bots": "unspecified|"}},
		// train-genai=n does not refuse ai-train (a subset says no, not the whole).
		{path: "/gen/x", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"ai-train-genai": "no|robots.txt line 5: Content-Usage /gen/",
				"ai-train": "unspecified|", "new-label": "no|robots.txt line 5", "search": "yes|robots.txt line 3"}},
	})
	if n := site.count("/.well-known/tdmrep.json"); n != 1 {
		t.Errorf("tdmrep.json requested %d times, want once", n)
	}
	tdmURL := site.URL + "/.well-known/tdmrep.json"
	if _, ok := warc[tdmURL][archive.TypeResponse]; !ok {
		t.Errorf("tdmrep.json has no response record: it is archived like robots.txt")
	}
	// The metadata record of a response not stored says why, and has no
	// request or response record beside it.
	meta := warc[site.URL+"/header"][archive.TypeMetadata]
	for _, want := range []string{"purpose: ai-train\r\n", "content-use: ai-train=no (header Content-Usage)\r\n",
		"content-use-refused: content-use: ai-train=no (header Content-Usage) refuses purpose ai-train: fetched, not stored\r\n"} {
		if !strings.Contains(meta, want) {
			t.Errorf("/header metadata record lacks %q:\n%s", want, meta)
		}
	}
	if _, ok := warc[site.URL+"/header"][archive.TypeRequest]; ok {
		t.Errorf("/header has a request record: a response not stored has none")
	}
	if meta := warc[site.URL+"/open"][archive.TypeMetadata]; !strings.Contains(meta, "content-use: search=yes (robots.txt line 3: Content-Signal)\r\n") {
		t.Errorf("/open metadata record lacks its content-use lines:\n%s", meta)
	}
}

// TestContentUseNoPurpose: with no purpose declared nothing changes — every
// URL is fetched and stored, tdmrep.json is not asked for — and the
// signals are still recorded.
func TestContentUseNoPurpose(t *testing.T) {
	site, recs, entries, db := crawlUseSite(t, "")
	warc := warcByURL(entries)
	checkUseSite(t, site, recs, warc, db, []useWant{
		{path: "/private/a", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"ai-train": "no|robots.txt line 4: Content-Signal /private/", "search": "unspecified|"}},
		{path: "/tdm/x", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"tdm": "unspecified|", "search": "yes|robots.txt line 3"}},
		{path: "/header", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"ai-train": "no|header Content-Usage"}},
		{path: "/meta", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"ai-train": "no|meta robots"}},
		{path: "/open", state: storage.Fetched, requested: true, stored: true,
			uses: map[string]string{"search": "yes|robots.txt line 3"}},
	})
	if n := site.count("/.well-known/tdmrep.json"); n != 0 {
		t.Errorf("tdmrep.json requested %d times with no purpose, want never", n)
	}
	meta := warc[site.URL+"/header"][archive.TypeMetadata]
	if !strings.Contains(meta, "content-use: ai-train=no (header Content-Usage)\r\n") || strings.Contains(meta, "purpose:") {
		t.Errorf("/header metadata record: want its content-use line and no purpose:\n%s", meta)
	}
}

// accept_types is a cut of pages, not of the files that tell the crawler
// what it may do: with accept_types text/html the site's tdmrep.json
// (application/json) is still read, and its reservation of /tdm/* keeps
// /tdm/x from being stored for ai-train.
func TestTDMRepReadUnderAcceptTypes(t *testing.T) {
	site := newUseSite(t)
	db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
	defer db.Close()
	cfg := testConfig(site.URL + "/")
	cfg.Purpose = "ai-train"
	cfg.Fetch.AcceptTypes = []string{"text/html"}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	recs := records(t, db)
	for path, refused := range map[string]bool{"/tdm/x": true, "/open": false} {
		r := recs[site.URL+path]
		if r == nil {
			t.Fatalf("no record of %s", path)
		}
		if got := r.Error != ""; got != refused {
			t.Errorf("%s: not-stored reason %q (content_use %v), want refused %v", path, r.Error, r.ContentUse, refused)
		}
	}
}

// tdmrep.json is a request like any other: it is asked for only when
// robots.txt allows it and a page of its origin is about to be fetched
// (not when robots.txt's Content-Signal or Content-Usage lines already
// refuse the crawl's purpose for the page: it was asked for nothing).
func TestTDMRepOnlyWhereRobotsAllow(t *testing.T) {
	for _, tc := range []struct {
		name, robots string
		want         map[string]bool // path: requested
		rootUse      string          // "/"'s content_use of ai-train, "value|source"; "" when none
	}{
		{"all disallowed", "User-agent: *\nDisallow: /\n",
			map[string]bool{"/robots.txt": true, "/": false, tdmRepPath: false}, ""},
		{"tdmrep.json disallowed", "User-agent: *\nDisallow: /.well-known/\n",
			map[string]bool{"/robots.txt": true, "/": true, tdmRepPath: false}, ""},
		{"all allowed", "User-agent: *\nAllow: /\n",
			map[string]bool{"/robots.txt": true, "/": true, tdmRepPath: true}, ""},
		{"purpose refused by Content-Signal", "User-agent: *\nAllow: /\nContent-Signal: ai-train=no\n",
			map[string]bool{"/robots.txt": true, "/": false, tdmRepPath: false}, "no|robots.txt line 3: Content-Signal"},
		{"purpose refused by Content-Usage", "User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n",
			map[string]bool{"/robots.txt": true, "/": false, tdmRepPath: false}, "no|robots.txt line 3: Content-Usage"},
		{"another purpose refused", "User-agent: *\nAllow: /\nContent-Signal: search=no\n",
			map[string]bool{"/robots.txt": true, "/": true, tdmRepPath: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			hits := map[string]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hits[r.URL.Path]++
				mu.Unlock()
				if r.URL.Path == "/robots.txt" {
					fmt.Fprint(w, tc.robots)
					return
				}
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, "<html>x</html>")
			}))
			defer srv.Close()
			db := openDB(t, filepath.Join(t.TempDir(), "s.db"))
			defer db.Close()
			cfg := testConfig(srv.URL + "/")
			cfg.Purpose = "ai-train"
			c, err := New(db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Run(ctx); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			for p, want := range tc.want {
				if got := hits[p] > 0; got != want {
					t.Errorf("%s requested %d times, want requested %v", p, hits[p], want)
				}
			}
			// The seed, refused when its turn came (robots.txt known
			// then), keeps the refusing signal in its record.
			if tc.rootUse != "" {
				value, source, _ := strings.Cut(tc.rootUse, "|")
				got := records(t, db)[srv.URL+"/"].ContentUse["ai-train"]
				if got.Value != value || !strings.HasPrefix(got.Source, source) {
					t.Errorf("/ content_use ai-train = %+v, want %s from %q...", got, value, source)
				}
			}
		})
	}
}

// why says what content use decides, as the crawl does: a URL the site's
// robots.txt refuses the purpose for would be refused at admission, and a
// page fetched but not stored says why it was not.
func TestWhyContentUse(t *testing.T) {
	site, _, _, db := crawlUseSite(t, "ai-train")
	cfg := testConfig(site.URL + "/")
	cfg.Purpose = "ai-train"
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, step, verdict string
	}{
		{"/private/unseen", "ai-train=no (robots.txt line 4: Content-Signal /private/)",
			"would be recorded disallowed if found: content-use: ai-train=no (robots.txt line 4: Content-Signal /private/) refuses purpose ai-train"},
		{"/header", "no signal of robots.txt or tdmrep.json refuses",
			"fetched: content-use: ai-train=no (header Content-Usage) refuses purpose ai-train: not stored"},
		{"/open", "no signal of robots.txt or tdmrep.json refuses", "fetched"},
	} {
		w, err := c.ExplainOffline(site.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var step string
		for _, s := range w.Steps {
			if s.Step == "content use" {
				step = s.Result
			}
		}
		if !strings.Contains(step, tc.step) {
			t.Errorf("%s: content use step %q, want it to contain %q", tc.path, step, tc.step)
		}
		if w.Verdict != tc.verdict {
			t.Errorf("%s: verdict %q, want %q", tc.path, w.Verdict, tc.verdict)
		}
	}
}
