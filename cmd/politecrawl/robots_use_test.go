package main

import (
	"os"
	"path/filepath"
	"testing"
)

// robots --explain shows the content-use lines that apply to an allowed
// target and what they say of each use; a disallowed target has none.
func TestRobotsCommandContentUse(t *testing.T) {
	file := filepath.Join(t.TempDir(), "robots.txt")
	body := "User-agent: *\nAllow: /\nDisallow: /never/\nContent-Signal: search=yes, ai-train=no\nContent-Usage: /ai-ok/ train-ai=y\nContent-Usage: /bad/ Train-AI=n\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "robots", "--agent", "politecrawl", "--file", file, "--explain", "/ai-ok/x", "/never/x", "/bad/x")
	want := `allowed /ai-ok/x
  rule "Allow: /" at line 2, * group (no group names this agent), matched "/ai-ok/x"
  Content-Usage: train-ai=y at line 5
  Content-Signal: search=yes, ai-train=no at line 4
  content use: ai-train=no (line 4); ai-train-genai=no (line 4); ai-train-images=no (line 4); search=yes (line 4)
disallowed /never/x
  rule "Disallow: /never/" at line 3, * group (no group names this agent), matched "/never/x"
allowed /bad/x
  rule "Allow: /" at line 2, * group (no group names this agent), matched "/bad/x"
  Content-Usage: Train-AI=n at line 6
  Content-Signal: search=yes, ai-train=no at line 4
  content use: ai-train=no (line 4); ai-train-genai=no (line 4); ai-train-images=no (line 4); search=yes (line 4)
crawl-delay: none
request-rate: none
sitemaps: none
`
	if code != 0 || out != want {
		t.Errorf("exit %d, output:\n%s\nwant:\n%s", code, out, want)
	}
}
