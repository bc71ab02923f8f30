package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// BenchmarkRestartQueued measures, with the real binary, what a restart
// costs once many URLs are queued (issue 11: start to first request under
// 2 s whatever the queue length). One host's pages link 10,000 URLs each
// on 500 other hosts; `run` is killed with SIGKILL once about N URLs are
// queued (POLITECRAWL_RESTART_N, default 200,000; the figure is
// 1,010,000), then started again. Reported: the state file's size per
// queued URL, the time from the restart's exec to the first request any
// server saw (which includes the 100 ms delay every host keeps after a
// crash: a request may have left just before it), the process's RSS then,
// and the first run's peak RSS while queuing.
func BenchmarkRestartQueued(b *testing.B) {
	n := 200_000
	if s := os.Getenv("POLITECRAWL_RESTART_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("POLITECRAWL_RESTART_N: %v", err)
		}
		n = v
	}
	const perPage, others = 10_000, 500
	w := crawltest.NewWeb()
	defer w.Close()
	var scope []string
	for i := range others {
		h := w.AddHost(fmt.Sprintf("o%d", i), map[string]*crawltest.Page{})
		scope = append(scope, fmt.Sprintf("%q", h.Authority()))
	}
	pages := map[string]*crawltest.Page{"/robots.txt": {Body: "User-agent: *\nAllow: /\n"}}
	all := w.Hosts()
	for p := 0; p <= n/perPage; p++ {
		var sb strings.Builder
		sb.WriteString("<html><body>")
		if p < n/perPage {
			fmt.Fprintf(&sb, `<a href="/p/%d">next</a>`, p+1)
		}
		for i := range perPage {
			fmt.Fprintf(&sb, `<a href="%s">x</a>`, all[i%others].URL(fmt.Sprintf("/%d/%d/some/path/page.html", p, i)))
		}
		sb.WriteString("</body></html>")
		path := "/"
		if p > 0 {
			path = fmt.Sprintf("/p/%d", p)
		}
		pages[path] = &crawltest.Page{Body: sb.String()}
	}
	big := w.AddHost("big", pages)
	scope = append(scope, fmt.Sprintf("%q", big.Authority()))
	dir := b.TempDir()
	state := filepath.Join(dir, "state.db")
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`seeds: [%q]
state: %q
workers: 8
scope:
  hosts: [%s]
politeness:
  default_delay: 100ms
  allow_fast: true
network:
  allow_private: true
`, big.URL("/"), state, strings.Join(scope, ", "))), 0o600)
	for b.Loop() {
		cmd := exec.Command(binary, "run", "-c", cfg)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Minute)
		for {
			time.Sleep(time.Second)
			out, _ := exec.Command(binary, "status", "-c", cfg, "--json").Output()
			var st struct{ Queued int }
			if json.Unmarshal(out, &st) == nil && st.Queued >= n*9/10 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				b.Fatalf("not %d queued after 30 minutes", n)
			}
		}
		peak := procMiB(cmd.Process.Pid, "VmHWM:")
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		fi, err := os.Stat(state)
		if err != nil {
			b.Fatal(err)
		}
		before := totalRequests(w)
		start := time.Now()
		cmd = exec.Command(binary, "run", "-c", cfg)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for totalRequests(w) == before {
			if time.Since(start) > 2*time.Minute {
				cmd.Process.Kill()
				b.Fatal("no request within 2 minutes of the restart")
			}
			time.Sleep(time.Millisecond)
		}
		first := time.Since(start)
		rss := procMiB(cmd.Process.Pid, "VmRSS:")
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		b.ReportMetric(float64(fi.Size())/float64(n), "bytes/queued")
		b.ReportMetric(float64(first.Milliseconds()), "ms_to_first_request")
		b.ReportMetric(rss, "MiB_rss_then")
		b.ReportMetric(peak, "MiB_peak_rss_queuing")
	}
}

// procMiB reads a memory figure of a process (VmRSS:, VmHWM:) in MiB (0
// if unknown).
func procMiB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
