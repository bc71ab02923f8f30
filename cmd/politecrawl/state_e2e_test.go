package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	bolt "go.etcd.io/bbolt"
)

// cli runs the built binary and returns its output and exit status.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v: no exit in 60s", args)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// garbleMiddle overwrites the element headers of the branch and leaf
// pages in use in the middle third of a state file's pages in use. Which
// pages hold the tree and which are freed copies depends on how commits
// fell, so it asks bbolt (on a copy) rather than guessing from offsets.
func garbleMiddle(t *testing.T, path string) {
	t.Helper()
	used := usedTreePages(t, path)
	if len(used) == 0 {
		t.Fatalf("no branch or leaf page in use in %s", path)
	}
	lo, hi := len(used)/3, 2*len(used)/3
	if hi == lo {
		hi = lo + 1
	}
	for _, id := range used[lo:hi] {
		garblePage(t, path, id)
	}
}

// usedTreePages lists the branch and leaf pages a state file's tree uses
// (not freed ones), by opening a copy with bbolt.
func usedTreePages(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(cp, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var out []int
	for id := 3; ; id++ {
		info, err := tx.Page(id)
		if err != nil {
			t.Fatal(err)
		}
		if info == nil {
			return out
		}
		if info.Type == "branch" || info.Type == "leaf" {
			out = append(out, id)
		}
	}
}

// treePages lists the branch and leaf pages (in use or freed) of a state
// file that contain marker (nil: any).
func treePages(t *testing.T, path string, marker []byte) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const ps = 4096
	var out []int
	for id := 3; id < len(b)/ps; id++ {
		p := b[id*ps : (id+1)*ps]
		if flags := p[8]; (flags == 0x01 || flags == 0x02) && (marker == nil || bytes.Contains(p, marker)) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no branch or leaf page in %s", path)
	}
	return out
}

// garblePage overwrites the first element headers of page id.
func garblePage(t *testing.T, path string, id int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xab}, 64), int64(id)*4096+16); err != nil {
		t.Fatal(err)
	}
}

// wantDamaged asserts the one-line failure of a command on a damaged file.
func wantDamaged(t *testing.T, what string, stderr string, code int, say string) {
	t.Helper()
	if code != 1 {
		t.Errorf("%s: exit %d, want 1; stderr:\n%s", what, code, stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, " is damaged: ") || !strings.Contains(stderr, say) ||
		!strings.Contains(stderr, "the last good copy is ") && !strings.Contains(stderr, "there is no backup copy to restore") {
		t.Errorf("%s: stderr %q, want one line saying the file is damaged (%s) and where the last good copy is, or that there is none", what, stderr, say)
	}
	if strings.Contains(stderr, "the last good copy is none") {
		t.Errorf("%s: stderr %q calls no copy a copy", what, stderr)
	}
	if strings.Contains(stderr, "empty (0 bytes)") && strings.Contains(stderr, "salvage") {
		t.Errorf("%s: stderr %q suggests salvaging an empty file", what, stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("%s: a Go panic:\n%s", what, stderr)
	}
}

func TestDamagedStateFile(t *testing.T) {
	const pages = 10
	w, names := treeWeb(pages)
	defer w.Close()
	cfg, state := e2eConfig(t, w, names)
	runToEnd(t, cfg)
	healthy, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	backup := state + ".bak"
	if _, err := os.Stat(backup); err != nil {
		t.Fatalf("no backup after a clean stop: %v", err)
	}
	if out, _, code := cli(t, "state", "check", "-c", cfg); code != 0 || !strings.Contains(out, "healthy") {
		t.Fatalf("state check of a healthy file: exit %d\n%s", code, out)
	}

	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		say    string
	}{
		{"truncated", func(t *testing.T, p string) { os.Truncate(p, int64(len(healthy)/2+100)) }, "truncated"},
		{"truncated to a page", func(t *testing.T, p string) { os.Truncate(p, 4096) }, "is damaged"},
		{"garbled in the middle", garbleMiddle, "page"},
		{"empty", func(t *testing.T, p string) { os.Truncate(p, 0) }, "empty (0 bytes)"},
		{"not a state file", func(t *testing.T, p string) { os.WriteFile(p, []byte("hello\n"), 0o600) }, "not a bbolt file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(backup)
			if err := os.WriteFile(state, healthy, 0o600); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, state)
			for _, args := range [][]string{{"status", "-c", cfg}, {"export", "-c", cfg}, {"run", "-c", cfg}, {"seed", "-c", cfg, w.Host(names[0]).URL("/x")}} {
				_, stderr, code := cli(t, args...)
				wantDamaged(t, args[0], stderr, code, tc.say)
			}
			out, stderr, code := cli(t, "state", "check", "-c", cfg)
			wantDamaged(t, "state check", stderr, code, tc.say)
			if !strings.Contains(out, "problem: ") || !strings.Contains(out, "damaged: ") {
				t.Errorf("state check output:\n%s", out)
			}
		})
	}
}

func TestSalvageAndResume(t *testing.T) {
	const pages = 30
	w, names := treeWeb(pages)
	defer w.Close()
	cfg, state := e2eConfig(t, w, names)
	cmd := startRun(t, cfg, w, 40)
	cmd.Process.Kill() // a crash: no backup, URLs still queued
	cmd.Wait()
	// A page of URL records (fetched ones hold their content type): in
	// use or not (bbolt keeps freed copies); garble them one by one until
	// the check notices.
	found := false
	for _, id := range treePages(t, state, []byte("text/html")) {
		garblePage(t, state, id)
		if _, _, code := cli(t, "state", "check", "-c", cfg); code == 1 {
			found = true
			break
		}
	}
	if !found {
		t.Fatal("no page of URL records in use found")
	}
	if _, stderr, code := cli(t, "status", "-c", cfg); code != 1 || !strings.Contains(stderr, "there is no backup copy to restore") {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}

	salvaged := filepath.Join(t.TempDir(), "salvaged.db")
	if _, stderr, code := cli(t, "state", "salvage", "-c", cfg); code != 2 || !strings.Contains(stderr, "-o NEW is required") {
		t.Errorf("salvage without -o: exit %d: %s", code, stderr)
	}
	out, stderr, code := cli(t, "state", "salvage", "-c", cfg, "-o", salvaged)
	if code != 0 {
		t.Fatalf("salvage: exit %d: %s%s", code, out, stderr)
	}
	t.Logf("salvage:\n%s", out)
	for _, want := range []string{"BUCKET", "urls", "queue", "records copied", "problem: ", "repaired: "} {
		if !strings.Contains(out, want) {
			t.Errorf("salvage output lacks %q", want)
		}
	}
	if _, stderr, code := cli(t, "state", "salvage", "--state", state, "-o", salvaged); code != 2 || !strings.Contains(stderr, "already exists") {
		t.Errorf("salvage over an existing file: exit %d: %s", code, stderr)
	}
	if out, _, code := cli(t, "state", "check", "--state", salvaged); code != 0 {
		t.Fatalf("check of the salvaged file: exit %d\n%s", code, out)
	}

	// The crawl resumes from the salvaged file and drains.
	out, stderr, code = cli(t, "run", "-c", cfg, "--state", salvaged)
	if code != 0 {
		t.Fatalf("run on the salvaged file: exit %d\n%s%s", code, out, stderr)
	}
	out, _, code = cli(t, "export", "-c", cfg, "--state", salvaged)
	if code != 0 || strings.Count(out, "\n") < pages {
		t.Errorf("export of the resumed crawl: exit %d, %d records", code, strings.Count(out, "\n"))
	}
	for _, n := range names {
		for _, v := range w.Host(n).Violations(e2eDelay, crawltest.Slack, nil) {
			t.Error(v)
		}
	}
}

func TestBackupRestores(t *testing.T) {
	w, names := treeWeb(5)
	defer w.Close()
	cfg, state := e2eConfig(t, w, names)
	runToEnd(t, cfg)
	os.Truncate(state, 5000)
	_, stderr, code := cli(t, "export", "-c", cfg)
	wantDamaged(t, "export", stderr, code, "truncated")
	if !strings.Contains(stderr, "the last good copy is "+state+".bak (saved ") {
		t.Errorf("stderr does not point at the backup: %s", stderr)
	}
	good, _ := os.ReadFile(state + ".bak")
	os.WriteFile(state, good, 0o600)
	if out, _, code := cli(t, "export", "-c", cfg); code != 0 || strings.Count(out, "\n") != 5*len(names) {
		t.Errorf("export from the restored backup: exit %d, %d records", code, strings.Count(out, "\n"))
	}
}

func TestStateCommandUsage(t *testing.T) {
	for _, args := range [][]string{{"state", "check"}, {"state", "salvage", "-o", "x"}} {
		_, stderr, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "give -c FILE or --state PATH") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	_, stderr, code := runCLI(t, "state", "check", "--state", filepath.Join(t.TempDir(), "none.db"))
	if code != 1 || !strings.Contains(stderr, "none.db") {
		t.Errorf("check of a missing file: exit %d: %s", code, stderr)
	}
}
