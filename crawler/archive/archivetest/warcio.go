package archivetest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// warcioDir is where warcio.js is pinned (package.json and
// package-lock.json) and `make deps` installs it, from the module root:
// beside this package, its only user.
const warcioDir = "crawler/archive/archivetest/warcio"

// cli finds node and the warcio.js command line, or skips (fails in CI).
func cli(t testing.TB) (node, script string) {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("warcio.js check cannot run: %s (.ci/run installs it)", why)
		}
		t.Skipf("skipping the warcio.js check: %s; run `make deps` to install it", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	root, err := moduleRoot()
	if err != nil {
		missing(err.Error())
	}
	script = filepath.Join(root, filepath.FromSlash(warcioDir), "node_modules", "warcio", "dist", "cli.js")
	if _, err := os.Stat(script); err != nil {
		missing(warcioDir + "/node_modules has no warcio")
	}
	return node, script
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

func run(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	node, script := cli(t)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("warcio %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// Files lists the WARC files of dir (closed ones only).
func Files(t testing.TB, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.warc*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".warc") || strings.HasSuffix(n, ".warc.gz") {
			out = append(out, filepath.Base(n))
		}
	}
	sort.Strings(out)
	return out
}

// CDXJ runs `warcio cdx-index` over every WARC file of dir and returns
// its lines sorted (as pywb's index is).
func CDXJ(t testing.TB, dir string) []string {
	t.Helper()
	files := Files(t, dir)
	if len(files) == 0 {
		t.Fatalf("no WARC files in %s", dir)
	}
	lines := run(t, dir, append([]string{"cdx-index", "--format", "cdxj"}, files...)...)
	sort.Strings(lines)
	return lines
}

// Record is one record as warcio.js read it.
type Record struct {
	File      string `json:"filename"`
	Offset    int64  `json:"offset"`
	Length    int64  `json:"length"`
	Type      string `json:"warc-type"`
	TargetURI string `json:"warc-target-uri"`
	Profile   string `json:"warc-profile"`
}

// Records lists every record of every WARC file in dir, in file order, as
// warcio.js's index command reads them.
func Records(t testing.TB, dir string) []Record {
	t.Helper()
	var out []Record
	for _, f := range Files(t, dir) {
		for _, l := range run(t, dir, "index", f, "--fields", "filename,offset,length,warc-type,warc-target-uri,warc-profile") {
			var r Record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("warcio index line %q: %v", l, err)
			}
			out = append(out, r)
		}
	}
	return out
}

// Count tallies records by WARC-Type.
func Count(recs []Record) map[string]int {
	n := map[string]int{}
	for _, r := range recs {
		n[r.Type]++
	}
	return n
}
