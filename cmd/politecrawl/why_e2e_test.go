package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// scopeDaemonConfig writes a config restricted to h's /docs/ with *.txt
// excluded, an override for h, the daemon kept running by its recrawl
// interval; extra is appended to the scope section.
func scopeDaemonConfig(t *testing.T, path string, h *crawltest.Host, state, listen, extra string) {
	t.Helper()
	cfg := fmt.Sprintf(`seeds: [%q]
state: %q
politeness:
  default_delay: 20ms
  allow_fast: true
network:
  allow_private: true
daemon:
  recrawl_interval: 1h
  shutdown_timeout: 2s
http:
  listen: %q
scope:
  prefixes:
    - %q
  exclude_patterns:
    - '\.txt$'
%shosts:
  127.0.0.1:
    min_delay: 50ms
`, h.URL("/docs/"), state, listen, h.URL("/docs/"), extra)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

func whyOut(t *testing.T, cfg, u string) string {
	t.Helper()
	out, err := exec.Command(binary, "why", "-c", cfg, u).CombinedOutput()
	if err != nil {
		t.Fatalf("why %s: %v\n%s", u, err, out)
	}
	return string(out)
}

// TestWhyExplainsScopeRobotsAndFetches runs a daemon restricted by scope
// rules and asks why of three URLs while it runs (through GET /why) and
// after it stopped (from the state file): one a scope rule refuses (with
// its line in the config), one robots.txt refuses (with its line), one
// fetched. A reload with a bad rule is refused naming the key and the
// rule, and the old rules stay. The export carries why for the refused.
func TestWhyExplainsScopeRobotsAndFetches(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	h := w.AddHost("site", map[string]*crawltest.Page{
		"/robots.txt":     {Body: "User-agent: *\nDisallow: /docs/private\n"},
		"/docs/":          {Body: `<a href="/docs/a">a</a><a href="/docs/private">p</a><a href="/docs/notes.txt">n</a><a href="/other">o</a>`},
		"/docs/a":         {Body: `<title>A</title>`},
		"/docs/private":   {Body: `secret`},
		"/docs/notes.txt": {Body: `notes`},
		"/other":          {Body: `other`},
	})
	dir := t.TempDir()
	cfg, state, listen := filepath.Join(dir, "crawl.yaml"), filepath.Join(dir, "state.db"), freePort(t)
	scopeDaemonConfig(t, cfg, h, state, listen, "")
	d := startDaemon(t, cfg)
	waitUntil(t, "/docs/a fetched", 20*time.Second, func() bool { return h.Count("/docs/a") == 1 })
	txt, private, fetched := h.URL("/docs/notes.txt"), h.URL("/docs/private"), h.URL("/docs/a")
	wantTxt := []string{`scope:         out of scope: excluded by scope.exclude_patterns[0] "\\.txt$" (` + cfg + `:17)`,
		"verdict:       would not be fetched: out of scope", "host override: hosts.127.0.0.1 (" + cfg + ":19): min_delay 50ms"}
	wantPrivate := []string{`in scope: included by scope.prefixes[0]`, "(" + cfg + ":15)",
		"robots.txt:    disallowed by Disallow: /docs/private (line 2)", "verdict:       not fetched: disallowed"}
	wantFetched := []string{"robots.txt:    allowed", "record:        fetched (HTTP 200)", "verdict:       fetched"}
	check := func(when, u string, want []string) {
		t.Helper()
		out := whyOut(t, cfg, u)
		for _, s := range want {
			if !strings.Contains(out, s) {
				t.Errorf("%s: why %s lacks %q:\n%s", when, u, s, out)
			}
		}
	}
	var live crawler.Why
	waitUntil(t, "GET /why answers", 10*time.Second, func() bool {
		resp, err := http.Get("http://" + listen + "/why?url=" + url.QueryEscape(private))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&live) == nil && strings.HasPrefix(live.Verdict, "not fetched")
	})
	check("running", txt, wantTxt)
	check("running", private, wantPrivate)
	check("running", fetched, wantFetched)

	// A bad rule on reload: refused, naming key and rule; the old rules stay.
	scopeDaemonConfig(t, cfg, h, state, listen, "  exclude:\n    - docs.example.org/x\n")
	d.cmd.Process.Signal(syscall.SIGHUP)
	waitUntil(t, "the reload refused", 10*time.Second, func() bool { return d.logged("SIGHUP: config not reloaded") })
	d.mu.Lock()
	var refusal string
	for _, m := range d.logs {
		if m["msg"] == "SIGHUP: config not reloaded" {
			refusal, _ = m["error"].(string)
		}
	}
	d.mu.Unlock()
	if !strings.Contains(refusal, `scope.exclude[0] "docs.example.org/x"`) || !strings.Contains(refusal, "not a URL prefix") {
		t.Errorf("reload refusal %q does not name the key and the rule", refusal)
	}
	// The file is bad now (why -c would refuse it too): ask the daemon.
	resp, err := http.Get("http://" + listen + "/why?url=" + url.QueryEscape(txt))
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&live)
	resp.Body.Close()
	if len(live.Steps) < 2 || !strings.Contains(live.Steps[1].Result, "scope.exclude_patterns[0]") {
		t.Errorf("after a refused reload, GET /why says %+v; want the old rules", live.Steps)
	}
	d.stop(t)

	scopeDaemonConfig(t, cfg, h, state, listen, "")
	check("stopped", txt, wantTxt)
	check("stopped", private, wantPrivate)
	check("stopped", fetched, wantFetched)
	check("stopped", h.URL("/docs/private2"), []string{"record:        not seen by the crawl",
		"verdict:       would be recorded disallowed if found: robots.txt: Disallow: /docs/private (line 2)"})
	// --state alone: the records still answer, but the scope is not in
	// the state file. It said "out of scope" of every URL.
	unknown := "unknown: no crawl is running and no config was given (-c FILE)"
	for u, want := range map[string][]string{
		fetched:              {"scope:         " + unknown, "record:        fetched (HTTP 200)", "verdict:       fetched"},
		h.URL("/docs/never"): {"scope:         " + unknown, "record:        not seen by the crawl", "verdict:       " + unknown},
	} {
		out, errOut, code := runCLI(t, "why", "--state", state, u)
		if code != 0 {
			t.Fatalf("why --state: exit %d: %s", code, errOut)
		}
		for _, s := range want {
			if !strings.Contains(out, s) {
				t.Errorf("why --state %s lacks %q:\n%s", u, s, out)
			}
		}
	}
	// A scope given in the environment is a scope all the same.
	t.Setenv("POLITECRAWL_SEEDS", h.URL("/docs/"))
	out, errOut, code := runCLI(t, "why", "--state", state, h.URL("/docs/never"))
	if code != 0 || strings.Contains(out, unknown) || !strings.Contains(out, "verdict:       would be queued if found") {
		t.Errorf("why --state with POLITECRAWL_SEEDS: exit %d, %s\n%s", code, errOut, out)
	}
	if n := h.Count("/docs/notes.txt") + h.Count("/other") + h.Count("/docs/private"); n != 0 {
		t.Errorf("%d requests for URLs outside the rules or disallowed", n)
	}
	rec := exportRecords(t, cfg)[private]
	if rec.Why != "disallowed: robots.txt: Disallow: /docs/private (line 2)" {
		t.Errorf("export why of %s = %q", private, rec.Why)
	}
	if r := exportRecords(t, cfg)[fetched]; r.Why != "" {
		t.Errorf("export why of a fetched page = %q, want none", r.Why)
	}
}

// TestWhyBeforeAnyCrawl: the rules alone answer, and asking creates no
// state file.
func TestWhyBeforeAnyCrawl(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.db")
	cfg := writeConfig(t, fmt.Sprintf("seeds: [https://docs.example.org/3/howto/]\nstate: %q\nscope:\n  seed_prefix: true\n  skip_extensions: [zip]\n", state))
	out, errOut, code := runCLI(t, "why", "-c", cfg, "https://docs.example.org/3/howto/a.html", "https://docs.example.org/3/howto/a.zip",
		"https://docs.example.org/3/library/")
	if code != 0 {
		t.Fatalf("why: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`in scope: included by scope.seed_prefix (seeds[0]) "https://docs.example.org/3/howto/" (` + cfg + ":1)",
		"verdict:       would be queued if found",
		`excluded by scope.skip_extensions[0] "zip" (` + cfg + ":5)",
		"out of scope: no include rule matches",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("why made a state file (%v)", err)
	}
}
