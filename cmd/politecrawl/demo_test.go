package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo crawls at the default 1s delay")
	}
	// A variable meant for a key, misspelt (politeness.default_delay's is
	// POLITECRAWL_POLITENESS_DEFAULT_DELAY): the demo warns, as run does.
	t.Setenv("POLITECRAWL_DEFAULT_DELAY", "2s")
	out, errOut, code := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "warning: environment variable POLITECRAWL_DEFAULT_DELAY matches no config key"; !strings.Contains(errOut, want) {
		t.Errorf("demo's stderr %q lacks %q", errOut, want)
	}
	for _, want := range []string{
		"fetched: 12",
		"sitemap     /sitemap.xml           urlset: 2 listed, 1 accepted",
		"/press/2026-launch (\"Launch news\"; found in the sitemap, linked from no page)",
		"disallowed: 2",
		"/admin/login: robots.txt: Disallow: /admin/ (line 3)",
		"/products/?sort=price: robots.txt: Disallow: /*?sort= (line 4)",
		"/drafts (\"Drafts\"; noindex: fetched, content not kept)",
		"/drafts/idea (\"An idea\"; nofollow: links not followed)",
		"/catalog.pdf (noindex",
		"/old-about (HTTP 301",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q\n%s", want, out)
		}
	}
	// The site's own log, summarised by the demo: 14 requests, robots.txt
	// first, never closer than the 1s default delay.
	m := regexp.MustCompile(`saw (\d+) requests, robots.txt first, one at a time, at least 1s apart \(smallest gap (\S+)\)`).FindStringSubmatch(out)
	if m == nil || m[1] != "14" || !strings.HasPrefix(m[2], "1") {
		t.Errorf("politeness line: %q", m)
	}
}
