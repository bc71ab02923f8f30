package crawler

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/storage"
)

// TestReportedResultsAreDurable crawls with no delays and more workers than
// hosts, so that results come back while earlier ones are being committed
// and hosts are handed their next URL before their previous result is
// committed. Every outcome reported to Observe must already be in the state
// file when it is reported (a kill -9 then loses nothing reported), every
// host sees one request at a time, and every page is fetched once.
func TestReportedResultsAreDurable(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	const hosts, pages = 6, 40
	var names, scope []string
	for i := 0; i < hosts; i++ {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i, n := range names {
		h := w.AddTree(n, pages, "User-agent: *\nDisallow: /private/\n", 0, names[(i+1)%hosts])
		scope = append(scope, h.Authority())
	}
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := storage.Open(path, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := testConfig(w.Host("h0").URL("/"))
	cfg.Scope, cfg.DefaultDelay, cfg.Workers = scope, 0, 16
	reported := 0
	var notDurable []string
	cfg.Observe = func(e Event) {
		reported++
		db.View(func(tx *storage.Tx) error {
			rec, err := tx.GetURL(e.URL)
			if err != nil || rec == nil || string(rec.State) != e.State {
				notDurable = append(notDurable, fmt.Sprintf("%s reported %s, state file has %v", e.URL, e.State, rec))
			}
			return nil
		})
	}
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(notDurable) > 0 {
		t.Errorf("%d of %d outcomes reported before they were committed, e.g. %v", len(notDurable), reported, notDurable[0])
	}
	if reported != hosts*pages {
		t.Errorf("%d outcomes reported, want %d", reported, hosts*pages)
	}
	for _, h := range w.Hosts() {
		if v := h.Violations(0, 0, nil); len(v) > 0 {
			t.Errorf("%v", v)
		}
		got := h.Paths()
		if want := append(crawltest.TreePaths(pages), "/robots.txt"); !slices.Equal(got, sorted(want)) {
			t.Errorf("%s: requested %v, want each page once: %v", h.Name, got, sorted(want))
		}
	}
	var fetched int
	db.View(func(tx *storage.Tx) error { fetched = tx.Counts()[storage.Fetched]; return nil })
	if fetched != hosts*pages {
		t.Errorf("%d pages fetched, want %d", fetched, hosts*pages)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestHostAhead pins how a host's in-memory queue head (ahead) follows
// the queue: it is extended only while it holds every URL after the
// cursor, and the cursor drops what was taken or settled.
func TestHostAhead(t *testing.T) {
	type op struct {
		enqueue string // URL queued (its seq is the op's index+1)
		take    bool   // the head is handed out (taken++, advance)
		record  bool   // the oldest taken URL is recorded and dequeued
		settle  bool   // the head is settled without a request
	}
	cases := []struct {
		name   string
		queued int // URLs already queued but not read into ahead
		ops    []op
		want   []string
	}{
		{"queued URLs join a whole list", 0,
			[]op{{enqueue: "a"}, {enqueue: "b"}}, []string{"a", "b"}},
		{"taking drops the head", 0,
			[]op{{enqueue: "a"}, {enqueue: "b"}, {take: true}}, []string{"b"}},
		{"recording a taken URL keeps the list whole", 0,
			[]op{{enqueue: "a"}, {take: true}, {record: true}, {enqueue: "b"}}, []string{"b"}},
		{"queuing while a URL is taken", 0,
			[]op{{enqueue: "a"}, {take: true}, {enqueue: "b"}, {record: true}, {enqueue: "c"}}, []string{"b", "c"}},
		{"settling drops the head", 0,
			[]op{{enqueue: "a"}, {enqueue: "b"}, {settle: true}}, []string{"b"}},
		{"a list missing URLs of the state file is not extended", 2,
			[]op{{enqueue: "a"}}, nil},
	}
	var many []op
	var first []string
	for i := 0; i < aheadMax+3; i++ {
		u := fmt.Sprint("u", i)
		many = append(many, op{enqueue: u})
		if i < aheadMax {
			first = append(first, u)
		}
	}
	cases = append(cases, struct {
		name   string
		queued int
		ops    []op
		want   []string
	}{"memory per host is bounded", 0, many, first})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &hostState{queued: tc.queued}
			for i, o := range tc.ops {
				seq := uint64(100 + i)
				switch {
				case o.enqueue != "":
					h.enqueued(o.enqueue, seq)
					h.queued++
				case o.take:
					h.taken++
					h.advance(h.ahead[0].seq)
				case o.record:
					h.queued--
					h.taken--
				case o.settle:
					h.queued--
					h.advance(h.ahead[0].seq)
				}
			}
			var got []string
			for _, e := range h.ahead {
				got = append(got, e.url)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ahead %v, want %v", got, tc.want)
			}
		})
	}
}
