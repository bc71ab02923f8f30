package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/archive/archivetest"
)

// TestWARCSurvivesKill9 archives a crawl that is killed with SIGKILL
// twice, each time with a record torn part-way (as a kill during a write
// leaves it), and checks after the final run that: no file is left open,
// warcio.js reads every file and its index equals `export --format cdxj`
// line by line, and every URL the state file calls fetched has its
// response record.
func TestWARCSurvivesKill9(t *testing.T) {
	const pages = 30
	w, names := treeWeb(pages)
	defer w.Close()
	cfg, _ := e2eConfig(t, w, names)
	dir := filepath.Join(filepath.Dir(cfg), "warc")
	appendConfig(t, cfg, "warc:\n  enabled: true\n  dir: "+dir+"\n  prefix: e2e\n")

	for _, at := range []int{20, 60} {
		cmd := startRun(t, cfg, w, at)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		open, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz.open"))
		if len(open) != 1 {
			t.Fatalf("after kill -9 at %d requests: open files %v", at, open)
		}
		tearLastRecord(t, open[0])
	}
	out := runToEnd(t, cfg)
	if !strings.Contains(out, "recovered WARC file left open") {
		t.Errorf("the restart did not report the recovery:\n%s", out)
	}
	if open, _ := filepath.Glob(filepath.Join(dir, "*.open")); len(open) != 0 {
		t.Errorf("files left open after a clean stop: %v", open)
	}
	files := archivetest.Files(t, dir)
	if len(files) != 3 {
		t.Errorf("want one file per run, got %v", files)
	}
	exported, err := exec.Command(binary, "export", "-c", cfg, "--format", "cdxj").Output()
	if err != nil {
		t.Fatalf("export --format cdxj: %v", err)
	}
	ours := strings.Split(strings.TrimSpace(string(exported)), "\n")
	var sidecars []string
	for _, f := range archivetest.Files(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, f+".cdxj"))
		if err != nil {
			t.Errorf("no index beside %s: %v", f, err)
		}
		sidecars = append(sidecars, strings.Split(strings.TrimSpace(string(b)), "\n")...)
	}
	sort.Strings(sidecars)
	if strings.Join(sidecars, "\n") != strings.Join(ours, "\n") {
		t.Errorf("the .cdxj files beside the WARC files (%d lines) differ from export --format cdxj (%d lines)", len(sidecars), len(ours))
	}
	indexed := map[string]bool{}
	for _, l := range ours {
		if i := strings.Index(l, `"url":"`); i >= 0 {
			u := l[i+7:]
			indexed[u[:strings.IndexByte(u, '"')]] = true
		}
	}
	for url, r := range exportRecords(t, cfg) {
		if r.State == "fetched" && !indexed[url] {
			t.Errorf("%s is fetched in the state file but not in the WARC files", url)
		}
	}
	// Last, as it skips without node (by hand): warcio.js reads every
	// file, and its index is ours.
	if theirs := archivetest.CDXJ(t, dir); strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("export --format cdxj (%d lines) differs from warcio's index (%d lines)", len(ours), len(theirs))
	}
	recs := archivetest.Records(t, dir)
	n := archivetest.Count(recs)
	// Requests in flight at a kill (at most 4 workers each time) were
	// answered but never archived, and are fetched again.
	total := totalRequests(w)
	if n["warcinfo"] != 3 || n["request"] > total || n["request"] < total-2*4 || n["response"]+n["revisit"] != n["request"] {
		t.Errorf("warcio counts %v; the servers answered %d requests", n, total)
	}
	t.Logf("warcio read %v; servers answered %d requests", n, total)
}

func appendConfig(t *testing.T, path, extra string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
}

// tearLastRecord appends the first half of the file's first record (its
// warcinfo gzip member) to it: what a kill in the middle of a write
// leaves, a record whose URL the state file never recorded.
func tearLastRecord(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 200 {
		t.Fatalf("open file %s: %d bytes, %v", path, len(data), err)
	}
	appendConfig(t, path, string(data[:100]))
}
