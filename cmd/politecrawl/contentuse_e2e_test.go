package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportContentUse runs the binary with policy.purpose: ai-train on a
// loopback site whose robots.txt reserves /private/ for AI training and
// whose /header answers Content-Usage: train-ai=n, then reads the export:
// the refusal is a disallowed record naming the line (and content_use
// holding it), the header's refusal a fetched record not stored, and
// content_use has each use's value and source.
func TestExportContentUse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nContent-Signal: search=yes\nContent-Signal: /private/ ai-train=no\nAllow: /\n")
		case "/":
			fmt.Fprint(w, `<html><title>home</title><a href="/private/a">a</a><a href="/header">h</a></html>`)
		case "/header":
			w.Header().Set("Content-Usage", "train-ai=n, future=y")
			fmt.Fprint(w, `<html><title>header</title></html>`)
		case "/private/a":
			t.Errorf("/private/a was requested: its robots.txt says ai-train=no")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("seeds: [%q]\nstate: %q\npoliteness:\n  default_delay: 20ms\n  allow_fast: true\n"+
		"network:\n  allow_private: true\npolicy:\n  purpose: ai-train\n", srv.URL+"/", filepath.Join(dir, "s.db"))
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	runToEnd(t, cfg)
	recs := exportRecords(t, cfg)
	private, header, home := recs[srv.URL+"/private/a"], recs[srv.URL+"/header"], recs[srv.URL+"/"]
	if private.State != "disallowed" || !strings.Contains(private.Error, "ai-train=no (robots.txt line 3: Content-Signal /private/) refuses purpose ai-train") {
		t.Errorf("/private/a: %s %q, want disallowed by its robots.txt line", private.State, private.Error)
	}
	if header.State != "fetched" || header.Title != "" || !strings.HasSuffix(header.Error, "refuses purpose ai-train: not stored") {
		t.Errorf("/header: %s title %q error %q, want fetched, not stored", header.State, header.Title, header.Error)
	}
	for _, tc := range []struct {
		rec           ExportRecord
		use, value, s string
	}{
		{header, "ai-train", "no", "header Content-Usage"},
		{header, "future", "yes", "header Content-Usage"},
		{header, "search", "yes", "robots.txt line 2: Content-Signal"},
		{header, "ai-input", "unspecified", ""},
		{home, "search", "yes", "robots.txt line 2: Content-Signal"},
		{home, "ai-train", "unspecified", ""},
		// Refused before a request: the refusing signal, as a fetched
		// page's (it was {}, the signal only in error).
		{private, "ai-train", "no", "robots.txt line 3: Content-Signal /private/"},
	} {
		if got := tc.rec.ContentUse[tc.use]; got.Value != tc.value || got.Source != tc.s {
			t.Errorf("%s content_use[%s] = %+v, want %s from %q", tc.rec.URL, tc.use, got, tc.value, tc.s)
		}
	}
}
