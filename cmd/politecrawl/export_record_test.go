package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/storage"
)

// TestExportRecordSchedule: the export says when a page was last seen by
// a fetch or a recheck, when it is due again (or that its recheck waits in
// the queue) and the payload digest of its archived body; the pinned
// fields stay as they were, and the extras are left out when unknown.
func TestExportRecordSchedule(t *testing.T) {
	fetched := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	base := storage.URLRecord{URL: "http://a.test/", State: storage.Fetched, Status: 200, FetchedAt: fetched}
	for _, tc := range []struct {
		name string
		edit func(r *storage.URLRecord)
		want map[string]any    // extras expected; nil value: absent
		use  map[string]string // content_use expected: value by use
	}{
		{"never rechecked, no schedule", func(r *storage.URLRecord) {},
			map[string]any{"checked_at": nil, "next_check": nil, "payload_digest": nil}, nil},
		{"confirmed unchanged, due again", func(r *storage.URLRecord) {
			r.CheckedAt, r.NextCheck = fetched.Add(time.Hour), fetched.Add(2*time.Hour)
			r.PayloadDigest = "sha1:ABC"
		}, map[string]any{"checked_at": "2026-11-01T11:00:00Z", "next_check": "2026-11-01T12:00:00Z", "payload_digest": "sha1:ABC"}, nil},
		{"recheck queued", func(r *storage.URLRecord) { r.NextCheck = storage.CheckQueued },
			map[string]any{"next_check": "queued"}, nil},
		{"content-use signals read", func(r *storage.URLRecord) {
			r.ContentUse = map[string]storage.ContentUse{"ai-train": {Value: "no", Source: "robots.txt line 3: Content-Signal"},
				"search": {Value: "unspecified"}}
		}, nil, map[string]string{"ai-train": "no", "search": "unspecified", "bots": "unspecified"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			tc.edit(&r)
			b, err := json.Marshal(newExportRecord(&r))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			json.Unmarshal(b, &got)
			// Fetched: every known use is there, unspecified unless a
			// signal spoke of it.
			if cu, ok := got["content_use"].(map[string]any); !ok || len(cu) != len(contentuse.Known) {
				t.Errorf("content_use = %v, want the %d known uses: %s", got["content_use"], len(contentuse.Known), b)
			}
			for use, want := range tc.use {
				cu, _ := got["content_use"].(map[string]any)
				if g, _ := cu[use].(map[string]any); g == nil || g["value"] != want {
					t.Errorf("content_use[%s] = %v, want value %s: %s", use, cu[use], want, b)
				}
			}
			if got["fetched_at"] != "2026-11-01T10:00:00Z" || got["status"] != 200.0 || got["state"] != "fetched" {
				t.Errorf("pinned fields changed: %s", b)
			}
			// The thirteen pinned fields are always there; every other key
			// is an extra the case expects.
			for _, k := range []string{"url", "state", "status", "depth", "discovered_via", "fetched_at",
				"content_type", "title", "noindex", "nofollow", "links", "error", "content_use"} {
				if _, ok := got[k]; !ok {
					t.Errorf("pinned field %s missing: %s", k, b)
				}
				delete(got, k)
			}
			for k := range got {
				if w, ok := tc.want[k]; !ok || w == nil {
					t.Errorf("unexpected field %s in %s", k, b)
				}
			}
			for k, w := range tc.want {
				if g, ok := got[k]; w == nil && ok || w != nil && g != w {
					t.Errorf("%s = %v (present %v), want %v in %s", k, g, ok, w, b)
				}
			}
		})
	}
}

// A URL never fetched had no signals read: its content_use is {}; one
// fetched shows the unknown labels its signals gave beside the known uses.
func TestExportContentUseShape(t *testing.T) {
	never := newExportRecord(&storage.URLRecord{URL: "http://a.test/x", State: storage.Disallowed, Error: "robots.txt"})
	if never.ContentUse == nil || len(never.ContentUse) != 0 {
		t.Errorf("never fetched: content_use %v, want {}", never.ContentUse)
	}
	b, _ := json.Marshal(never)
	if !strings.Contains(string(b), `"content_use":{}`) {
		t.Errorf("never fetched: %s, want content_use {}", b)
	}
	fetched := newExportRecord(&storage.URLRecord{URL: "http://a.test/", State: storage.Fetched, FetchedAt: time.Unix(1, 0),
		ContentUse: map[string]storage.ContentUse{"x-new": {Value: "no", Source: "header Content-Usage"}}})
	if len(fetched.ContentUse) != len(contentuse.Known)+1 || fetched.ContentUse["x-new"].Value != "no" || fetched.ContentUse["tdm"].Value != "unspecified" {
		t.Errorf("fetched: content_use %v, want the known uses and x-new", fetched.ContentUse)
	}
}
