package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProgressOnTerminal runs `run` under a pseudo-terminal (util-linux
// script) and checks the one-line progress display replaces per-fetch log
// lines there, and is gone once the final summary is written.
func TestProgressOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("util-linux script (Debian: bsdutils) is not installed; .ci/run installs it")
		}
		t.Skip("util-linux script (Debian: bsdutils) not installed: no pseudo-terminal to test with; .ci/run installs it")
	}
	const pages = 30
	w, names := treeWeb(pages)
	defer w.Close()
	cfg, _ := e2eConfig(t, w, names)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, script, "-qfec", binary+" run -c "+cfg, "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("run under a terminal: %v\n%s", err, out)
	}
	text := string(out)
	progress := regexp.MustCompile(`fetched \d+  queued \d+  in flight \d+  [\d.]+ pages/s  \d+ hosts waiting on politeness`)
	if !progress.MatchString(text) {
		t.Errorf("no progress line in the terminal output:\n%q", text)
	}
	if strings.Contains(text, "msg=fetch") {
		t.Errorf("per-fetch log lines on a terminal:\n%s", text)
	}
	_, after, ok := strings.Cut(text, "crawl stopped fetched=120")
	if !ok {
		t.Errorf("no final summary:\n%q", text)
	}
	// The summary is the last thing drawn: a progress line redrawn under
	// it is from a status taken before the end (fewer pages).
	if progress.MatchString(after) {
		t.Errorf("a progress line drawn after the final summary:\n%q", after)
	}
}
