package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
)

// binary is the politecrawl command built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(asNobodyEnv) != "" {
		// A test run again as another user (rerunAsNobody) calls Main
		// in process: it needs no binary, and could not build one.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "politecrawl-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "politecrawl")
	// E2E_RACE=1 builds the binary with the race detector (slower): the
	// end-to-end tests then also check the processes they start.
	args := []string{"build", "-o", binary}
	if os.Getenv("E2E_RACE") == "1" {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build politecrawl: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const e2eDelay = 40 * time.Millisecond

// treeWeb is four hosts of pages linking to each other.
func treeWeb(pages int) (*crawltest.Web, []string) {
	w := crawltest.NewWeb()
	names := []string{"t1", "t2", "t3", "t4"}
	for i, n := range names {
		w.AddTree(n, pages, "User-agent: *\nDisallow: /nothing\n", 3*time.Millisecond, names[(i+1)%len(names)])
	}
	return w, names
}

func e2eConfig(t *testing.T, w *crawltest.Web, names []string) (cfgPath, state string) {
	t.Helper()
	dir := t.TempDir()
	state = filepath.Join(dir, "state.db")
	var hosts []string
	for _, n := range names {
		hosts = append(hosts, fmt.Sprintf("%q", w.Host(n).Authority()))
	}
	cfg := fmt.Sprintf(`agent:
  name: politecrawl
  user_agent: "politecrawl/e2e (+https://example.org/bot)"
seeds: [%q]
state: %q
workers: 4
scope:
  hosts: [%s]
politeness:
  default_delay: %s
  allow_fast: true
network:
  allow_private: true
daemon:
  shutdown_timeout: 3s
`, w.Host(names[0]).URL("/"), state, strings.Join(hosts, ", "), e2eDelay)
	cfgPath = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfgPath, state
}

func totalRequests(w *crawltest.Web) int {
	n := 0
	for _, h := range w.Hosts() {
		n += len(h.Log())
	}
	return n
}

// startRun starts `politecrawl run` and waits until the web has served at
// least n requests in total.
func startRun(t *testing.T, cfg string, w *crawltest.Web, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, "run", "-c", cfg, "--log-format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for totalRequests(w) < n {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("only %d requests after 30s; stderr:\n%s", totalRequests(w), stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd
}

func runToEnd(t *testing.T, cfg string) string {
	t.Helper()
	cmd := exec.Command(binary, "run", "-c", cfg)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("run did not drain in 60s:\n%s", out)
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	return string(out)
}

func exportRecords(t *testing.T, cfg string) map[string]ExportRecord {
	t.Helper()
	out, err := exec.Command(binary, "export", "-c", cfg).Output()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	recs := map[string]ExportRecord{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r ExportRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		recs[r.URL] = r
	}
	return recs
}

// checkComplete asserts the crawl fetched every page of the web, recorded
// each once, and never broke politeness across the runs.
func checkComplete(t *testing.T, w *crawltest.Web, names []string, pages int, cfg string, maxRepeats int) {
	t.Helper()
	recs := exportRecords(t, cfg)
	repeats := 0
	for _, n := range names {
		h := w.Host(n)
		for _, v := range h.Violations(e2eDelay, crawltest.Slack, nil) {
			t.Error(v)
		}
		for _, p := range append(crawltest.TreePaths(pages), "/robots.txt") {
			c := h.Count(p)
			if c == 0 {
				t.Errorf("%s%s never fetched", n, p)
			}
			repeats += c - 1
			if p == "/robots.txt" {
				continue
			}
			if r, ok := recs[h.URL(p)]; !ok || r.State != "fetched" || r.Status != 200 || r.FetchedAt == "" {
				t.Errorf("%s%s: export record %+v", n, p, r)
			}
		}
	}
	if repeats > maxRepeats {
		t.Errorf("%d URLs fetched again, want at most %d (only those in flight at the stop)", repeats, maxRepeats)
	}
	if len(recs) != len(names)*pages {
		t.Errorf("export has %d records, want %d", len(recs), len(names)*pages)
	}
}

func TestResumeAfterKill9(t *testing.T) {
	const pages = 40
	w, names := treeWeb(pages)
	defer w.Close()
	cfg, _ := e2eConfig(t, w, names)

	for _, at := range []int{15, 70} {
		cmd := startRun(t, cfg, w, at)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		t.Logf("killed after %d requests", totalRequests(w))
	}
	runToEnd(t, cfg)
	// Two kills with at most 4 requests in flight each.
	checkComplete(t, w, names, pages, cfg, 2*4)
}

func TestGracefulStopAndResume(t *testing.T) {
	const pages = 30
	w, names := treeWeb(pages)
	defer w.Close()
	cfg, state := e2eConfig(t, w, names)

	cmd := startRun(t, cfg, w, 20)
	// While it runs (no http.listen), status and export ask the crawl
	// through its control socket; --state alone stands in for -c.
	start := time.Now()
	out, err := exec.Command(binary, "status", "--state", state).CombinedOutput()
	if err != nil || !strings.Contains(string(out), state+" (running)") || time.Since(start) > 3*time.Second {
		t.Errorf("status during a crawl: %v after %v: %s", err, time.Since(start), out)
	}
	live := filepath.Join(t.TempDir(), "live.jsonl")
	if out, err := exec.Command(binary, "export", "-c", cfg, "-o", live).CombinedOutput(); err != nil {
		t.Errorf("export during a crawl: %v: %s", err, out)
	} else if data, _ := os.ReadFile(live); bytes.Count(data, []byte("\n")) == 0 {
		t.Errorf("export during a crawl wrote no records")
	} else {
		for line := range bytes.Lines(data) {
			var r ExportRecord
			if err := json.Unmarshal(line, &r); err != nil || r.URL == "" || r.State == "queued" {
				t.Errorf("live export line %q: %v", line, err)
				break
			}
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	stopped := make(chan error, 1)
	go func() { stopped <- cmd.Wait() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("SIGTERM: exit %v", err)
		}
	case <-time.After(8 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no exit within 8s of SIGTERM")
	}
	before := totalRequests(w)
	out, err = exec.Command(binary, "status", "-c", cfg, "--json").Output()
	var st status.Status
	if err != nil || json.Unmarshal(out, &st) != nil || st.Queued == 0 || st.Fetched == 0 || st.Hosts == 0 {
		t.Fatalf("status after stop: %v %s", err, out)
	}
	t.Logf("stopped after %d requests: %d fetched, %d queued", before, st.Fetched, st.Queued)

	runToEnd(t, cfg)
	// A graceful stop finishes its in-flight fetches: nothing is fetched twice.
	checkComplete(t, w, names, pages, cfg, 0)
}

// TestRunMakesTheStateDirectory: a first run whose state file is in a
// directory that does not exist yet makes it (it failed, naming an
// internal temporary file).
func TestRunMakesTheStateDirectory(t *testing.T) {
	w, names := treeWeb(2)
	defer w.Close()
	cfg, state := e2eConfig(t, w, names)
	nested := filepath.Join(filepath.Dir(state), "new", "dir", "state.db")
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(body), state, nested, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	runToEnd(t, cfg)
	if _, err := os.Stat(nested); err != nil {
		t.Errorf("state file after the run: %v", err)
	}
	if n := totalRequests(w); n == 0 {
		t.Error("nothing crawled")
	}
}
