package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/metrics"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
)

// linkPage is an HTML page with n links to /p0 ... /p(n-1) of its own host.
func linkPage(n int) *crawltest.Page {
	var b strings.Builder
	b.Grow(n * 24)
	b.WriteString("<!DOCTYPE html><html><title>links</title>")
	for i := range n {
		fmt.Fprintf(&b, `<a href="/p%d">%d</a>`, i, i)
	}
	return &crawltest.Page{Body: b.String()}
}

func linkHeavyWeb(links int) (*crawltest.Web, *crawltest.Host, *crawltest.Host) {
	web := crawltest.NewWeb()
	big := web.AddHost("big", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           linkPage(links),
	})
	other := web.AddTree("other", 60, "User-agent: *\nAllow: /\n", 0)
	return web, big, other
}

// TestLinkHeavyPageIsCappedAndAdmittedInChunks: a page of 200,000 links
// queues limits.max_links_per_page of them, counts the rest, and the other
// hosts keep being served while its links are admitted.
func TestLinkHeavyPageIsCappedAndAdmittedInChunks(t *testing.T) {
	web, big, other := linkHeavyWeb(200_000)
	defer web.Close()
	cfg := testConfig(big.URL("/"), other.URL("/"))
	cfg.DefaultDelay = 20 * time.Millisecond
	cfg.MaxLinksPerPage = 5 * linkChunk
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	// Stop once the other host is fully crawled: the big host's 5,000
	// pages would take minutes at its delay. (Parsing 200,000 links under
	// the race detector on a loaded machine takes tens of seconds.)
	deadline := time.After(120 * time.Second)
	for !recorded(db, big.URL("/")) || len(other.Paths()) < len(crawltest.TreePaths(60))+1 {
		select {
		case err := <-done:
			t.Fatalf("crawl ended early: %v", err)
		case <-deadline:
			t.Fatalf("other host not crawled in time: %d paths", len(other.Paths()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	recs := records(t, db)
	page := recs[big.URL("/")]
	if page == nil || page.State != storage.Fetched {
		t.Fatalf("big page: %+v", page)
	}
	if len(page.Links) != cfg.MaxLinksPerPage || page.LinksDropped != 200_000-cfg.MaxLinksPerPage {
		t.Errorf("big page: %d links kept, %d dropped; want %d and %d", len(page.Links), page.LinksDropped,
			cfg.MaxLinksPerPage, 200_000-cfg.MaxLinksPerPage)
	}
	queued := 0
	for _, r := range recs {
		if strings.HasPrefix(r.URL, big.URL("/p")) {
			queued++
		}
	}
	if queued != cfg.MaxLinksPerPage {
		t.Errorf("%d of the big page's links recorded, want %d", queued, cfg.MaxLinksPerPage)
	}
	// The other host was never stalled behind the big page: no gap between
	// two of its requests came near the time its admission took.
	log := other.Log()
	var worst time.Duration
	for i := 1; i < len(log); i++ {
		worst = max(worst, log[i].Start.Sub(log[i-1].Start))
	}
	t.Logf("other host: %d requests, widest gap %v", len(log), worst)
	if worst > 3*time.Second {
		t.Errorf("other host stalled for %v while the big page's links were admitted", worst)
	}
}

// TestStopWhileAdmittingLinks: a stop during a big page's admission is
// answered at once; the page stays queued and a restart finishes it
// without queueing any link twice.
func TestStopWhileAdmittingLinks(t *testing.T) {
	web, big, other := linkHeavyWeb(20_000)
	defer web.Close()
	path := filepath.Join(t.TempDir(), "state.db")
	cfg := testConfig(big.URL("/"), other.URL("/"))
	cfg.MaxLinksPerPage = 15 * linkChunk
	cfg.ShutdownGrace = 200 * time.Millisecond
	db := openDB(t, path)
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	// Stop once a few chunks of the page's links are admitted.
	for countRecords(db) < 3*linkChunk {
		select {
		case err := <-done:
			t.Fatalf("crawl ended early: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	stop := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(cfg.ShutdownGrace + 2*time.Second):
		t.Fatal("stop not answered within the shutdown grace")
	}
	took := time.Since(stop)
	t.Logf("stopped %v after the signal", took)
	db.Close()

	// Restart and run until the page is recorded with all its links.
	db = openDB(t, path)
	defer db.Close()
	c, err = New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel2()
	done = make(chan error, 1)
	go func() { done <- c.Run(ctx2) }()
	for {
		if recorded(db, big.URL("/")) {
			rec := records(t, db)[big.URL("/")]
			if len(rec.Links) != cfg.MaxLinksPerPage || rec.LinksDropped != 5_000 {
				t.Errorf("after restart: %d links, %d dropped", len(rec.Links), rec.LinksDropped)
			}
			break
		}
		select {
		case err := <-done:
			if !recorded(db, big.URL("/")) {
				t.Fatalf("crawl ended before the page was recorded: %v", err)
			}
			done <- err
		case <-ctx2.Done():
			t.Fatal("page not recorded in time")
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel2()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var queued int
	db.View(func(tx *storage.Tx) error { queued = tx.Counts()[storage.Queued]; return nil })
	fetched := 0
	for _, r := range records(t, db) {
		if r.State == storage.Fetched {
			fetched++
		}
	}
	// Every link is recorded once: queued or fetched, never twice (the
	// counters would then exceed the link count).
	if n := len(records(t, db)); n > cfg.MaxLinksPerPage+1+len(crawltest.TreePaths(60))+2 {
		t.Errorf("%d records: some links recorded twice", n)
	}
	t.Logf("after restart: %d queued, %d fetched", queued, fetched)
}

func recorded(db *storage.DB, url string) bool {
	var rec *storage.URLRecord
	db.View(func(tx *storage.Tx) error { rec, _ = tx.GetURL(url); return nil })
	return rec != nil && rec.State == storage.Fetched
}

func countRecords(db *storage.DB) int {
	n := 0
	db.View(func(tx *storage.Tx) error {
		for _, v := range tx.Counts() {
			n += v
		}
		return nil
	})
	return n
}

// TestUnusableLinksAreRecorded: a link over 8 KiB and one that is not a
// valid URL are recorded as skipped with the reason, not dropped silently.
func TestUnusableLinksAreRecorded(t *testing.T) {
	web := crawltest.NewWeb()
	defer web.Close()
	long := "/" + strings.Repeat("x", 9000)
	h := web.AddHost("h", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="` + long + `">long</a><a href="http://bad host:x/">bad</a><a href="/ok">ok</a>`},
		"/ok":         {Body: "ok"},
	})
	cfg := testConfig(h.URL("/"))
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range records(t, db) {
		if r.State == storage.Skipped {
			reasons = append(reasons, r.Error)
			if len(r.URL) > frontier.UnusablePrefix+3 || r.Parent != h.URL("/") {
				t.Errorf("skipped record %.80q: %d bytes, parent %q", r.URL, len(r.URL), r.Parent)
			}
		}
	}
	joined := strings.Join(reasons, "\n")
	if len(reasons) != 2 || !strings.Contains(joined, "longer than 8192 bytes") || !strings.Contains(joined, "invalid URL") {
		t.Errorf("skipped reasons: %q", reasons)
	}
	if h.Count("/ok") != 1 {
		t.Error("the good link was not followed")
	}
}

// TestStopIsAnsweredWithinTheGrace: a stop while a worker parses a huge
// page returns within ShutdownGrace; the page stays queued.
func TestStopIsAnsweredWithinTheGrace(t *testing.T) {
	web, big, other := linkHeavyWeb(200_000)
	defer web.Close()
	cfg := testConfig(big.URL("/"), other.URL("/"))
	cfg.ShutdownGrace = 600 * time.Millisecond
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for big.Count("/") == 0 {
		select {
		case err := <-done:
			t.Fatalf("crawl ended early: %v", err)
		case <-time.After(2 * time.Millisecond):
		}
	}
	time.Sleep(100 * time.Millisecond) // the page has arrived; parsing it takes seconds
	stop := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the stop in 10s")
	}
	took := time.Since(stop)
	t.Logf("stopped %v after the signal", took)
	if took > cfg.ShutdownGrace+300*time.Millisecond {
		t.Errorf("stop took %v, grace %v", took, cfg.ShutdownGrace)
	}
	if recorded(db, big.URL("/")) {
		t.Log("the page was recorded before the stop (parsing was quick)")
	}
}

// TestCommitResultsCountLinkHeavyPages: politecrawl_commit_results counts
// every result a commit records, a link-heavy page (recorded after its
// links are admitted in chunks) included: here robots.txt and the page.
func TestCommitResultsCountLinkHeavyPages(t *testing.T) {
	var b strings.Builder
	for i := range 3 * linkChunk / 2 {
		fmt.Fprintf(&b, `<a href="http://elsewhere.test/p%d">%d</a>`, i, i) // out of scope: not fetched
	}
	web := crawltest.NewWeb()
	defer web.Close()
	h := web.AddHost("big", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: "<title>links</title>" + b.String()},
	})
	reg := prometheus.NewRegistry()
	cfg := testConfig(h.URL("/"))
	cfg.Metrics = metrics.New(reg)
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !recorded(db, h.URL("/")) {
		t.Fatal("the page was not recorded")
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() == "politecrawl_commit_results" {
			sum = f.GetMetric()[0].GetHistogram().GetSampleSum()
		}
	}
	if sum != 2 {
		t.Errorf("politecrawl_commit_results counted %v results, want 2 (robots.txt and the page)", sum)
	}
}
