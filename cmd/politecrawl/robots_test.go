package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestRobotsCommand(t *testing.T) {
	const file = "testdata/robots.txt"
	for _, c := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"decisions", []string{"robots", "--agent", "politecrawl", "--file", file, "/private/a", "/private/press/x", "https://example.org/doc.pdf", "/"},
			"disallowed /private/a\nallowed /private/press/x\ndisallowed https://example.org/doc.pdf\nallowed /\n", 0},
		{"whole user-agent header", []string{"robots", "--agent", "politecrawl/1.2 (+https://example.org/bot)", "--file", file, "/private/a"},
			"disallowed /private/a\n", 0},
		{"global group for others", []string{"robots", "--agent", "otherbot", "--file", file, "/search", "/private/a"},
			"disallowed /search\nallowed /private/a\n", 0},
		{"explain", []string{"robots", "--agent", "politecrawl", "--file", file, "--explain", "/private/a", "/x"},
			`disallowed /private/a
  rule "Disallow: /private/" at line 12, group for this agent, matched "/private/a"
allowed /x
  no rule matched "/x" in the group for this agent: allowed
crawl-delay: 2.5s
request-rate: 1 per 10s (one every 10s) between 08:00 and 17:00 UTC
sitemap: https://example.org/sitemap.xml
`, 0},
		{"explain global", []string{"robots", "--agent", "otherbot", "--file", file, "--explain", "/search"},
			`disallowed /search
  rule "Disallow: /search" at line 5, * group (no group names this agent), matched "/search"
crawl-delay: 1s
request-rate: none
sitemap: https://example.org/sitemap.xml
`, 0},
		{"no agent", []string{"robots", "--file", file, "/a"}, "", 2},
		{"no source", []string{"robots", "--agent", "a", "/a"}, "", 2},
		{"two sources", []string{"robots", "--agent", "a", "--file", file, "--url", "http://127.0.0.1:1/", "/a"}, "", 2},
		{"no target", []string{"robots", "--agent", "a", "--file", file}, "", 2},
		{"missing file", []string{"robots", "--agent", "a", "--file", "testdata/nope.txt", "/a"}, "", 2},
		{"bad url", []string{"robots", "--agent", "a", "--url", "ftp://x/", "/a"}, "", 2},
		{"unknown flag", []string{"robots", "--agent", "a", "--nope"}, "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.code, errOut)
			}
			if out != c.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, c.want)
			}
			if code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("usage error must be one line, got %q", errOut)
			}
		})
	}
}

func TestRobotsCommandURL(t *testing.T) {
	var requests []string
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.Path+" "+r.Header.Get("User-Agent"))
		http.Redirect(w, r, "/real-robots.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/real-robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /no\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()

	out, errOut, code := runCLI(t, "robots", "--agent", "politecrawl/1.0", "--url", srv.URL+"/some/page", "/no", "/yes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := fmt.Sprintf("robots.txt %s/robots.txt: HTTP 200 after 1 redirect(s) to %s/real-robots.txt: rules parsed\ndisallowed /no\nallowed /yes\n", srv.URL, srv.URL)
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if len(requests) != 1 || requests[0] != "/robots.txt politecrawl/1.0" {
		t.Errorf("requests %q", requests)
	}

	out, _, code = runCLI(t, "robots", "--agent", "politecrawl", "--url", down.URL, "/yes")
	if code != 0 || !strings.Contains(out, "HTTP 503: robots.txt unreachable") || !strings.Contains(out, "disallowed /yes") {
		t.Errorf("503: exit %d, stdout %q", code, out)
	}
}
