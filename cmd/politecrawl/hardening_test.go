package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// TestSeedWithoutARunningCrawl: with scope.hosts empty, the scope is the
// config's seeds' hosts, offline as in a run. Each line is the URL, a tab
// and what became of it (the reason came first before).
func TestSeedWithoutARunningCrawl(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(cfg, []byte("seeds: [\"http://site.example/\"]\nstate: s.db\n"), 0o600)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"seed", "-c", cfg, "http://site.example/more"}, &out, &errb)
	if code != 0 || out.String() != "http://site.example/more\tqueued\n" {
		t.Errorf("seed in scope: exit %d, %q %q", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "s.db")); err != nil {
		t.Errorf("state not next to the config file: %v", err)
	}
	out.Reset()
	errb.Reset()
	code = Main(context.Background(), []string{"seed", "-c", cfg, "http://elsewhere.example/"}, &out, &errb)
	if code != 1 || out.String() != "http://elsewhere.example/\tout of scope\n" || !strings.Contains(errb.String(), "not added") {
		t.Errorf("seed out of scope: exit %d, %q %q", code, out.String(), errb.String())
	}
	// A URL seeded before, or recorded skipped (say by a scope rule of
	// an earlier config), is known: the line says its record, as why does
	// (before: a bare "known" for both).
	db, err := storage.Open(filepath.Join(dir, "s.db"), storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	const excluded = `scope: out of scope: excluded by scope.exclude_patterns[0] "18" (crawl.yaml:4)`
	err = db.Update(func(tx *storage.Tx) error {
		return tx.PutURL(&storage.URLRecord{URL: "http://site.example/18", State: storage.Skipped, Error: excluded, Links: []string{}}, "")
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code = Main(context.Background(), []string{"seed", "-c", cfg, "http://site.example/more", "http://site.example/18"}, &out, &errb)
	if want := "http://site.example/more\tknown: queued\nhttp://site.example/18\tknown: skipped: " + excluded + "\n"; code != 0 || out.String() != want {
		t.Errorf("seed known URLs: exit %d, %q %q; want exit 0, %q", code, out.String(), errb.String(), want)
	}
}

// TestSecondRunIsRefused: a run on a state file a crawl holds (the lock
// taken, the control socket served) stops at once with a message that
// says another run holds it (before: "another politecrawl process is
// running on it", after waiting a second; the wait is storage's
// TestSecondWriterRefusedAtOnce).
func TestSecondRunIsRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(cfg, []byte("seeds: [\"http://site.example/\"]\nstate: s.db\n"), 0o600)
	db, err := storage.Open(filepath.Join(dir, "s.db"), storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stop, err := serveSocket(filepath.Join(dir, "s.db"), http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	start := time.Now()
	code := Main(ctx, []string{"run", "-c", cfg}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "is in use by another politecrawl run") {
		t.Errorf("second run: exit %d, %q", code, errb.String())
	}
	if d := time.Since(start); d > briefLockWait {
		t.Errorf("refused after %v: a crawl's socket answered, the run should not wait", d)
	}
}

// TestRunWaitsForABriefHolder: a command that writes a stopped crawl's
// state file (seed, host pause) holds its lock for a moment, and a run
// starting then waits for it instead of failing as if a crawl held it
// (13 of 60 runs started beside a loop of host pause failed so).
func TestRunWaitsForABriefHolder(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "s.db")
	db, err := storage.Open(state, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		db.Close()
		close(released)
	}()
	d := &daemon{flags: &commonFlags{}, cfg: &Config{State: state}}
	got, err := d.openState()
	<-released
	if err != nil {
		t.Fatalf("openState while a command held the file for 300 ms: %v", err)
	}
	got.Close()
}

// TestFailedExportKeepsTheOutputFile: -o is replaced only by a complete
// export.
func TestFailedExportKeepsTheOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	os.WriteFile(out, []byte("previous export\n"), 0o600)
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"export", "--state", filepath.Join(dir, "missing.db"), "-o", out}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("export of a missing state: exit %d (%s)", code, stderr.String())
	}
	if data, _ := os.ReadFile(out); string(data) != "previous export\n" {
		t.Errorf("output file after a failed export: %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".out.jsonl.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestVersionCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "politecrawl ") || !strings.Contains(out.String(), "go1.") {
		t.Errorf("version: exit %d %q %q", code, out.String(), errb.String())
	}
}

func TestJSONLogDurations(t *testing.T) {
	var buf bytes.Buffer
	cfg := &Config{}
	cfg.Log.Level, cfg.Log.Format = "info", "json"
	newLogger(&buf, cfg, new(slog.LevelVar)).Info("x", "delay", 1500*time.Millisecond)
	if !strings.Contains(buf.String(), `"delay":"1.5s"`) {
		t.Errorf("json log: %s", buf.String())
	}
}

// TestControlSocketPath: the socket sits beside the state file, or in the
// temporary directory when that path is too long for a Unix socket.
func TestControlSocketPath(t *testing.T) {
	if got := controlSocket("/var/lib/pc/crawl.db"); got != "/var/lib/pc/crawl.db.sock" {
		t.Errorf("short path: %s", got)
	}
	long := "/" + strings.Repeat("d", 120) + "/crawl.db"
	got := controlSocket(long)
	if len(got) > maxSocketPath || got != controlSocket(long) || got == controlSocket(long+"2") {
		t.Errorf("long path: %s", got)
	}
}

// TestExportIncludesLinksDropped: a page over limits.max_links_per_page
// says in the export how many of its links were not queued.
func TestExportIncludesLinksDropped(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s.db")
	db, err := storage.Open(state, storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := &storage.URLRecord{URL: "http://h.example/", State: storage.Fetched, Status: 200, Links: []string{"http://h.example/a"}, LinksDropped: 41}
	if err := db.Update(func(tx *storage.Tx) error { return tx.PutURL(rec, "") }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"export", "--state", state}, &out, &errb); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	var got ExportRecord
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.LinksDropped != 41 || len(got.Links) != 1 {
		t.Errorf("export line %s: %+v %v", out.String(), got, err)
	}
}

// TestResumeCommand: the resume command the end of a run names reaches
// the state file the run used, and a cluster node names none (host
// refuses a cluster's config).
func TestResumeCommand(t *testing.T) {
	for _, c := range []struct {
		name      string
		flagState string
		env       string
		cluster   bool
		want      string
	}{
		{"the config's state", "", "", false, "politecrawl host resume -c c.yaml"},
		{"--state", "other.db", "", false, "politecrawl host resume -c c.yaml --state /s/other.db"},
		{"POLITECRAWL_STATE", "", "/s/env.db", false, "politecrawl host resume -c c.yaml --state /s/other.db"},
		{"a cluster node", "", "", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("POLITECRAWL_STATE", c.env)
			cfg := &Config{State: "/s/other.db"}
			if c.cluster {
				cfg.Cluster.NATS = "nats://127.0.0.1:4222"
			}
			d := &daemon{flags: &commonFlags{config: "c.yaml", state: c.flagState}, cfg: cfg}
			if got := d.resumeCommand(); got != c.want {
				t.Errorf("resumeCommand() = %q, want %q", got, c.want)
			}
		})
	}
}

// TestHostArgs: host pause|resume take a host as the crawl keys it, a URL
// standing for its host, or a bare host written any way a URL's host may
// be (Example.COM and a.test:80 were "unknown host" where the URL form
// worked); an empty argument is a usage error.
func TestHostArgs(t *testing.T) {
	for _, c := range []struct {
		arg, want string
		usage     bool
	}{
		{"a.test", "a.test", false},
		{"Example.COM", "example.com", false},
		{"a.test:80", "a.test", false},
		{"a.test:8080", "a.test:8080", false},
		{"127.0.0.1:18555", "127.0.0.1:18555", false},
		{"http://A.test:80/x?y", "a.test", false},
		{"https://a.test/", "a.test", false},
		{"", "", true},
		{"http://a b/", "", true},
	} {
		got, err := hostArgs([]string{c.arg})
		var ue usageError
		if c.usage {
			if !errors.As(err, &ue) {
				t.Errorf("hostArgs(%q) = %v, %v; want a usage error", c.arg, got, err)
			}
			continue
		}
		if err != nil || len(got) != 1 || got[0] != c.want {
			t.Errorf("hostArgs(%q) = %v, %v; want %q", c.arg, got, err, c.want)
		}
	}
}

// TestExportToAMissingFolder: -o in a folder that does not exist names
// the user's path and folder, not the temporary file tried there
// ("open /nodir/.out.jsonl.tmp-1317945373: no such file or directory").
func TestExportToAMissingFolder(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "s.db")
	db, err := storage.Open(state, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	out := filepath.Join(dir, "nodir", "out.jsonl")
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"export", "--state", state, "-o", out}, &stdout, &stderr)
	want := "politecrawl: export to " + out + ": cannot create a file in " + filepath.Dir(out) + ": no such file or directory\n"
	if code != 1 || stderr.String() != want {
		t.Errorf("export -o into a missing folder: exit %d, %q; want 1, %q", code, stderr.String(), want)
	}
}

// TestCDXJWithoutWARCFiles: export --format cdxj with no warc.dir says
// why in the config's words (it said "list WARC files: open warc: no
// such file or directory").
func TestCDXJWithoutWARCFiles(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "s.db")
	on := filepath.Join(dir, "on.yaml")
	os.WriteFile(on, []byte("seeds: [\"http://site.example/\"]\nstate: s.db\nwarc:\n  enabled: true\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--state", state}, "export --format cdxj: warc.enabled is false, so no WARC files were written (" + filepath.Join(dir, "warc") + " does not exist)"},
		{[]string{"-c", on}, "export --format cdxj: no WARC files written yet: " + filepath.Join(dir, "warc") + " does not exist"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), append([]string{"export", "--format", "cdxj"}, c.args...), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("export --format cdxj %v: exit %d, %q; want 1, %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestExportToAFolder: -o naming a folder is said to be one, before any
// export work (it was the rename's "file exists", which read as a refusal
// to overwrite).
func TestExportToAFolder(t *testing.T) {
	dir := t.TempDir()
	err := writeFileAtomic(dir, func(w io.Writer) error { t.Error("filled an export bound for a folder"); return nil })
	if err == nil || !strings.Contains(err.Error(), "it is a folder") {
		t.Errorf("export to a folder: %v, want it said to be a folder", err)
	}
}
