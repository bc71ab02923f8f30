package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/prometheus/common/expfmt"
)

// daemonProc is a `politecrawl run` subprocess whose JSON log is kept.
type daemonProc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs []map[string]any
	done chan error
}

func startDaemon(t *testing.T, cfg string) *daemonProc {
	t.Helper()
	d := &daemonProc{cmd: exec.Command(binary, "run", "-c", cfg, "--log-format", "json"), done: make(chan error, 1)}
	stderr, _ := d.cmd.StderrPipe()
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				d.mu.Lock()
				d.logs = append(d.logs, m)
				d.mu.Unlock()
			}
		}
		d.done <- d.cmd.Wait()
	}()
	t.Cleanup(func() { d.cmd.Process.Kill() })
	return d
}

func (d *daemonProc) logged(msg string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.logs {
		if m["msg"] == msg {
			return true
		}
	}
	return false
}

func (d *daemonProc) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10s of SIGTERM")
	}
}

func waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func writeDaemonConfig(t *testing.T, path, seed, state, listen string, delay time.Duration) {
	t.Helper()
	cfg := fmt.Sprintf(`seeds: [%q]
state: %q
politeness:
  default_delay: %s
  allow_fast: true
network:
  allow_private: true
daemon:
  recrawl_interval: 600ms
  shutdown_timeout: 2s
http:
  listen: %q
`, seed, state, delay, listen)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDaemonEndToEnd(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("site", map[string]*crawltest.Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n", Header: map[string]string{"Cache-Control": "max-age=1"}},
		"/":           {Body: `<a href="/a">a</a><a href="/b">b</a>`, ETag: `"root"`},
		"/a":          {Body: `<title>A</title>`, ETag: `W/"a-1"`},
		"/b":          {Body: `<title>B one</title>`, ETag: `"b-1"`, LastModified: "Mon, 02 Nov 2026 10:00:00 GMT"},
		"/c":          {Body: `<title>C</title>`},
		"/seeded":     {Body: `<title>Seeded live</title>`},
	})
	dir := t.TempDir()
	cfg, state, listen := filepath.Join(dir, "c.yaml"), filepath.Join(dir, "s.db"), freePort(t)
	writeDaemonConfig(t, cfg, h.URL("/"), state, listen, 50*time.Millisecond)
	d := startDaemon(t, cfg)

	// /healthz and a 304 round: the recheck carries the stored validators.
	waitUntil(t, "the endpoint", 10*time.Second, func() bool {
		resp, err := http.Get("http://" + listen + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	waitUntil(t, "a 304 for /a", 10*time.Second, func() bool { return statusOf(h, "/a", 304) })
	waitUntil(t, "a 304 for /b", 10*time.Second, func() bool { return statusOf(h, "/b", 304) })
	for _, r := range h.Log() {
		if r.Status == 304 && r.Path == "/b" && (r.IfNoneMatch != `"b-1"` || r.IfModifiedSince != "Mon, 02 Nov 2026 10:00:00 GMT") {
			t.Errorf("/b recheck headers: %+v", r)
		}
		if r.Status == 304 && r.Path == "/a" && r.IfNoneMatch != `W/"a-1"` {
			t.Errorf("/a recheck headers: %+v", r)
		}
	}

	// A changed page is re-extracted: its new link is followed.
	h.SetPage("/b", &crawltest.Page{Body: `<title>B two</title><a href="/c">c</a>`, ETag: `"b-2"`})
	waitUntil(t, "/c from the changed page", 10*time.Second, func() bool { return h.Count("/c") > 0 })

	// Live status and seeds through the endpoint, via the CLI. /c's
	// request reached the server; its result is in the status once its
	// batch committed, a moment later.
	var out []byte
	var err error
	var st status.Status
	liveStatus := func() bool {
		out, err = exec.Command(binary, "status", "-c", cfg, "--json").Output()
		return err == nil && json.Unmarshal(out, &st) == nil && st.Running && st.Fetched >= 4
	}
	deadline := time.Now().Add(5 * time.Second)
	for !liveStatus() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !st.Running || st.Fetched < 4 || len(st.PerHost) != 1 || st.PerHost[0].IntervalS != 0.05 {
		t.Errorf("live status: %v %s", err, out)
	}
	// One URL queued, one refused: each gets its line, and the exit
	// status (1) says not all were added.
	out, err = exec.Command(binary, "seed", "-c", cfg, h.URL("/seeded"), "http://elsewhere.invalid/").Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), h.URL("/seeded")+"\tqueued\n") || !strings.Contains(string(out), "http://elsewhere.invalid/\tout of scope\n") {
		t.Errorf("seed: %v %s", err, out)
	}
	waitUntil(t, "the live seed", 10*time.Second, func() bool { return h.Count("/seeded") > 0 })

	// robots.txt changes: once the new copy is read, /a is never requested again.
	changed := time.Now()
	h.SetPage("/robots.txt", &crawltest.Page{Body: "User-agent: *\nDisallow: /a\n", Header: map[string]string{"Cache-Control": "max-age=1"}})
	var newRobots time.Time
	waitUntil(t, "the new robots.txt to be read", 10*time.Second, func() bool {
		for _, r := range h.Log() {
			if r.Path == "/robots.txt" && r.Start.After(changed) && !r.End.IsZero() {
				newRobots = r.End
				return true
			}
		}
		return false
	})

	// SIGHUP with a longer delay, measured at the server.
	writeDaemonConfig(t, cfg, h.URL("/"), state, listen, 400*time.Millisecond)
	d.cmd.Process.Signal(syscall.SIGHUP)
	waitUntil(t, "the reload", 5*time.Second, func() bool { return d.logged("SIGHUP: config reloaded") })
	reloaded := time.Now()
	time.Sleep(2500 * time.Millisecond)
	var after []crawltest.Request
	for _, r := range h.Log() {
		if r.Start.After(reloaded) {
			after = append(after, r)
		}
		if r.Path == "/a" && r.Start.After(newRobots) {
			t.Errorf("/a requested at %v, after robots.txt disallowed it", r.Start)
		}
	}
	if len(after) < 3 {
		t.Fatalf("only %d requests after the reload", len(after))
	}
	for i := 1; i < len(after); i++ {
		if gap := after[i].Arrived.Sub(after[i-1].Arrived); gap < 400*time.Millisecond-crawltest.Slack {
			t.Errorf("gap %v after SIGHUP set 400ms (%s -> %s)", gap, after[i-1].Path, after[i].Path)
		}
	}

	// Metrics, parsed with Prometheus' own text parser.
	resp, err := http.Get("http://" + listen + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var parser expfmt.TextParser
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	value := func(name, label, lv string) float64 {
		f := families[name]
		if f == nil {
			return -1
		}
		for _, m := range f.Metric {
			match := label == ""
			for _, l := range m.Label {
				match = match || l.GetName() == label && l.GetValue() == lv
			}
			if !match {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
		return -1
	}
	for _, c := range []struct {
		name, label, value string
		min                float64
	}{
		{"politecrawl_fetches_total", "class", "2xx", 5},
		{"politecrawl_fetches_total", "class", "3xx", 2}, // the 304s
		{"politecrawl_fetch_duration_seconds", "", "", 7},
		{"politecrawl_robots_fetches_total", "outcome", "parsed", 2},
		{"politecrawl_politeness_wait_seconds_total", "", "", 0.1},
		{"politecrawl_hosts", "robots", "parsed", 1},
		{"politecrawl_urls", "state", "fetched", 3},
		{"politecrawl_queue_depth", "", "", 0},
		{"politecrawl_fetched_bytes_total", "", "", 50},
	} {
		if v := value(c.name, c.label, c.value); v < c.min {
			t.Errorf("%s{%s=%q} = %v, want >= %v", c.name, c.label, c.value, v, c.min)
		}
	}

	// SIGTERM, then a restart: nothing lost, rechecks go on with the stored validators.
	d.stop(t)
	before := exportRecords(t, cfg)
	for _, p := range []string{"/", "/b", "/c", "/seeded"} {
		if r := before[h.URL(p)]; r.State != "fetched" {
			t.Errorf("%s after stop: %+v", p, r)
		}
	}
	if r := before[h.URL("/b")]; r.Title != "B two" {
		t.Errorf("/b not re-extracted: %+v", r)
	}
	if r := before[h.URL("/a")]; r.State != "disallowed" {
		t.Errorf("/a after robots.txt disallowed it: %+v", r)
	}
	stopped := time.Now()
	d2 := startDaemon(t, cfg)
	waitUntil(t, "a recheck after the restart", 10*time.Second, func() bool {
		for _, r := range h.Log() {
			if r.Start.After(stopped) && r.Path == "/b" && r.Status == 304 {
				return true
			}
		}
		return false
	})
	for _, r := range h.Log() {
		if r.Start.After(stopped) && r.Path != "/robots.txt" && r.Path != "/c" && r.Path != "/seeded" && r.IfNoneMatch == "" {
			t.Errorf("after the restart %s was fetched without its stored ETag", r.Path)
		}
	}
	d2.stop(t)
	after2 := exportRecords(t, cfg)
	if len(after2) != len(before) {
		t.Errorf("%d records after the restart, %d before", len(after2), len(before))
	}
}

func statusOf(h *crawltest.Host, path string, status int) bool {
	for _, r := range h.Log() {
		if r.Path == path && r.Status == status {
			return true
		}
	}
	return false
}
