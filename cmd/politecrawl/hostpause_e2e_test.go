package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
)

// entry is the first log line of d with message msg, nil if none.
func (d *daemonProc) entry(msg string) map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.logs {
		if m["msg"] == msg {
			return m
		}
	}
	return nil
}

// index is the position of d's first log line with message msg, -1 if
// none.
func (d *daemonProc) index(msg string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, m := range d.logs {
		if m["msg"] == msg {
			return i
		}
	}
	return -1
}

// wait waits for d to exit on its own and fails unless it exits 0.
func (d *daemonProc) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case err := <-d.done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(limit):
		t.Fatalf("run did not end within %v", limit)
	}
}

// writePauseConfig writes the config of a crawl of seed: a one-shot run,
// or, with recrawl set, one that keeps going.
func writePauseConfig(t *testing.T, path, seed, state, listen string, recrawl time.Duration) {
	t.Helper()
	cfg := fmt.Sprintf(`seeds: [%q]
state: %q
politeness:
  default_delay: 60ms
  allow_fast: true
network:
  allow_private: true
daemon:
  recrawl_interval: %s
  shutdown_timeout: 2s
http:
  listen: %q
`, seed, state, recrawl, listen)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

const drainedHeld = "crawl drained except for paused hosts: their URLs stay queued"

// checkHeld checks that run d ended saying that host holds queued URLs
// (the drained line and the last line), with the command that resumes it,
// and never claimed the crawl drained outright.
func checkHeld(t *testing.T, what string, d *daemonProc, host string, queued int, resume string) {
	t.Helper()
	if d.logged("crawl drained") {
		t.Errorf("%s: logged plain \"crawl drained\" with URLs held on a paused host", what)
	}
	for _, msg := range []string{drainedHeld, "crawl stopped"} {
		e := d.entry(msg)
		if e == nil {
			t.Errorf("%s: no %q line", what, msg)
			continue
		}
		if e["held_urls"] != float64(queued) || e["paused_hosts"] != 1.0 || e["hosts"] != host || e["resume"] != resume {
			t.Errorf("%s: %q line %v; want held_urls %d, paused_hosts 1, hosts %s, resume %q", what, msg, e, queued, host, resume)
		}
	}
	if e := d.entry(drainedHeld); e != nil && e["level"] != "WARN" {
		t.Errorf("%s: drained line at %v, want WARN", what, e["level"])
	}
}

// offlineStatus reads the status of the stopped crawl.
func offlineStatus(t *testing.T, cfg string) status.Status {
	t.Helper()
	out, stderr, code := cli(t, "status", "-c", cfg, "--json")
	var st status.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Running || len(st.PerHost) != 1 {
		t.Fatalf("status --json: exit %d: %s%s", code, out, stderr)
	}
	return st
}

// TestPausedHostEndsTheRun: a host paused over HTTP in the middle of a
// one-shot run ends it, and the run says how many URLs the pause holds on
// which host and how to resume it; a second run does the same at once
// without a request; status --hosts of the stopped crawl shows the host
// paused; `host resume` in the state file lets a third run fetch the
// rest. Pause and resume each log a line saying who asked.
func TestPausedHostEndsTheRun(t *testing.T) {
	const pages = 30
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddTree("site", pages, "User-agent: *\nAllow: /\n", 0)
	host := h.Authority()
	dir := t.TempDir()
	cfg, state, listen := filepath.Join(dir, "c.yaml"), filepath.Join(dir, "s.db"), freePort(t)
	writePauseConfig(t, cfg, h.URL("/"), state, listen, 0)
	resume := "politecrawl host resume -c " + cfg + " " + host

	d := startDaemon(t, cfg)
	waitUntil(t, "five pages", 20*time.Second, func() bool { return len(h.Log()) >= 6 })
	resp, err := http.Post("http://"+listen+"/hosts/"+host+"/pause", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if resp.StatusCode != 200 || answer["host"] != host || answer["paused"] != true {
		t.Fatalf("POST pause: HTTP %d %v", resp.StatusCode, answer)
	}
	d.wait(t, 20*time.Second)
	if e := d.entry("host paused"); e == nil || e["host"] != host || e["by"] != "http" || !strings.HasPrefix(fmt.Sprint(e["from"]), "127.0.0.1:") {
		t.Errorf("pause log line: %v", e)
	}
	if p, e := d.index("host paused"), d.index(drainedHeld); p > e {
		t.Errorf("the pause is logged after the end it caused (lines %d, %d)", p, e)
	}
	st := offlineStatus(t, cfg)
	if st.Queued == 0 || st.Fetched >= pages {
		t.Fatalf("after the paused run: %d fetched, %d queued; want some queued", st.Fetched, st.Queued)
	}
	checkHeld(t, "first run", d, host, st.Queued, resume)
	if ph := st.PerHost[0]; ph.State != status.StatePaused || ph.Why != status.WhyOperator {
		t.Errorf("status --json of the stopped crawl: host state %q (%q), want paused", ph.State, ph.Why)
	}
	out, _, _ := cli(t, "status", "-c", cfg, "--hosts")
	if !strings.Contains(out, host+"  paused") {
		t.Errorf("status --hosts of the stopped crawl does not show the host paused:\n%s", out)
	}
	// Plain status says what the queued count holds: it showed "queued 2"
	// and nothing of the pause.
	out, _, _ = cli(t, "status", "-c", cfg)
	if want := fmt.Sprintf("paused      queued URLs on hosts you paused: %d (%s)", st.Queued, host); !strings.Contains(out, want) {
		t.Errorf("status of the stopped crawl does not say what the pause holds (want %q):\n%s", want, out)
	}

	// The next run holds the same URLs and asks the host nothing.
	requests := len(h.Log())
	d2 := startDaemon(t, cfg)
	d2.wait(t, 20*time.Second)
	checkHeld(t, "second run", d2, host, st.Queued, resume)
	if n := len(h.Log()); n != requests {
		t.Errorf("the second run sent %d requests to the paused host", n-requests)
	}

	// Resumed in the state file, with no crawl running.
	out, stderr, code := cli(t, "host", "resume", "-c", cfg, host)
	if code != 0 || out != host+"\tresumed\n" || !strings.Contains(stderr, `msg="host resumed" host=`+host+" by=cli") {
		t.Fatalf("host resume: exit %d: %q %s", code, out, stderr)
	}
	if st := offlineStatus(t, cfg); st.PerHost[0].State != "" {
		t.Errorf("after host resume, status shows state %q", st.PerHost[0].State)
	}
	d3 := startDaemon(t, cfg)
	d3.wait(t, 20*time.Second)
	if !d3.logged("crawl drained") || d3.logged(drainedHeld) {
		t.Error("third run: want a plain crawl drained line, nothing held")
	}
	if st := offlineStatus(t, cfg); st.Queued != 0 || st.Fetched != pages {
		t.Errorf("after the resumed run: %d fetched, %d queued; want %d, 0", st.Fetched, st.Queued, pages)
	}
}

// TestHostCommandLive: `host pause` and `host resume` on a running crawl
// go through its control socket, which logs who asked; the live status
// shows the pause; an unknown host is reported and exits 1.
func TestHostCommandLive(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddTree("site", 5, "User-agent: *\nAllow: /\n", 0)
	host := h.Authority()
	dir := t.TempDir()
	cfg, state, listen := filepath.Join(dir, "c.yaml"), filepath.Join(dir, "s.db"), freePort(t)
	writePauseConfig(t, cfg, h.URL("/"), state, listen, time.Hour)
	d := startDaemon(t, cfg)
	waitUntil(t, "the crawl's first page", 20*time.Second, func() bool { return h.Count("/") > 0 })

	out, stderr, code := cli(t, "host", "pause", "-c", cfg, h.URL("/p/1"), "unknown.invalid")
	if code != 1 || out != host+"\tpaused\nunknown.invalid\tunknown host\n" || !strings.Contains(stderr, "1 of 2 hosts unknown") {
		t.Errorf("host pause: exit %d: %q %s", code, out, stderr)
	}
	// The daemon's log reaches the test through a pipe, after its answer.
	waitUntil(t, "the pause log line", 10*time.Second, func() bool { return d.entry("host paused") != nil })
	if e := d.entry("host paused"); e == nil || e["host"] != host || e["by"] != "cli" || e["from"] != "control socket" {
		t.Errorf("pause log line: %v", e)
	}
	out, _, _ = cli(t, "status", "-c", cfg, "--hosts")
	if !strings.Contains(out, host+"  paused") {
		t.Errorf("live status --hosts does not show the host paused:\n%s", out)
	}
	out, stderr, code = cli(t, "host", "resume", "-c", cfg, host)
	if code != 0 || out != host+"\tresumed\n" {
		t.Errorf("host resume: exit %d: %q %s", code, out, stderr)
	}
	waitUntil(t, "the resume log line", 10*time.Second, func() bool { return d.entry("host resumed") != nil })
	if e := d.entry("host resumed"); e == nil || e["host"] != host || e["by"] != "cli" {
		t.Errorf("resume log line: %v", e)
	}
	d.stop(t)
}
