package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/storage"
)

// TestPrintHostsTable: status --hosts lists hosts most queued first, with
// their state and until when, counts by outcome, delay and its source,
// last status, and why (or the last error).
func TestPrintHostsTable(t *testing.T) {
	at := time.Date(2026, 11, 25, 20, 0, 2, 0, time.UTC)
	st := &status.Status{PerHost: []status.Host{
		{Host: "a.test", Queued: 1, State: status.StateBackingOff, Until: at, Why: "backoff after HTTP 503", IntervalS: 1, DelayFrom: "default",
			StateCounts: storage.StateCounts{Fetched: 3, Failed: 1}, LastStatus: 503},
		{Host: "b.test", Queued: 7, State: status.StateWaiting, Until: at, IntervalS: 2, DelayFrom: "Crawl-delay",
			StateCounts: storage.StateCounts{Fetched: 10, Disallowed: 2, Skipped: 4}, LastStatus: 200, IP: "192.0.2.7"},
		{Host: "c.test", LastError: "HTTP 500"},
	}}
	var buf bytes.Buffer
	printHostsTable(&buf, st)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want a header and 3 hosts:\n%s", len(lines), buf.String())
	}
	for i, want := range [][]string{
		{"HOST", "STATE", "QUEUED", "FETCHED", "DISALLOWED", "FAILED", "DELAY", "LAST STATUS"},
		{"b.test", "waiting", "2026-11-25T20:00:02Z", " 7 ", " 10 ", " 2 ", " 4 ", "2s (Crawl-delay)", "200", "192.0.2.7"},
		{"a.test", "backing off", "1s (default)", "503", "backoff after HTTP 503"},
		{"c.test", "HTTP 500"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q: no %q", i, lines[i], w)
			}
		}
	}
}

// TestStatusJSONOrHosts: --json with --hosts is a usage error (it was
// accepted and --hosts silently ignored), as is --hosts for a cluster.
func TestStatusJSONOrHosts(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "node.yaml")
	os.WriteFile(cfg, []byte("seeds: [\"http://site.example/\"]\nstate: s.db\ncluster:\n  nats: nats://127.0.0.1:1\n  name: x\n  node: n1\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "--hosts", "--state", filepath.Join(dir, "s.db")}, "--json and --hosts are either/or"},
		{[]string{"--hosts", "-c", cfg}, "status --hosts: not for a cluster's whole crawl"},
	} {
		var out, errb bytes.Buffer
		if code := Main(context.Background(), append([]string{"status"}, c.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("status %v: exit %d, %q; want 2, %q", c.args, code, errb.String(), c.want)
		}
	}
}
