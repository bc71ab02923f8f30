package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestTokenRequiredOffLoopback: a config listening beyond loopback without
// http.token (or with a short one) is refused, naming the key; loopback
// needs none.
func TestTokenRequiredOffLoopback(t *testing.T) {
	for _, c := range []struct {
		listen, token string
		bad           string // "" when valid
	}{
		{"127.0.0.1:9180", "", ""},
		{"localhost:9180", "", ""},
		{"[::1]:9180", "", ""},
		{"0.0.0.0:9180", "", "http.token"},
		{":9180", "", "http.token"},
		{"192.0.2.10:9180", "", "http.token"},
		{"0.0.0.0:9180", "short", "at least 16"},
		{"0.0.0.0:9180", "0123456789abcdef0123", ""},
	} {
		body := "seeds: [\"https://example.org/\"]\nhttp:\n  listen: \"" + c.listen + "\"\n"
		if c.token != "" {
			body += "  token: \"" + c.token + "\"\n"
		}
		_, err := loadConfig(writeConfig(t, body), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("listen %s token %q: %v, want valid", c.listen, c.token, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("listen %s token %q: %v, want an error naming %q", c.listen, c.token, err, c.bad)
		}
	}
}

// TestRequireToken: reads pass; with a token, changes need it; without
// one, changes addressed to a host name (DNS rebinding) are refused; a
// browser's cross-site change is refused either way.
func TestRequireToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	for i, c := range []struct {
		token, method, host, auth, site string
		want                            int
	}{
		{token, "GET", "127.0.0.1:9180", "", "", 204},
		{token, "HEAD", "127.0.0.1:9180", "", "", 204},
		{token, "POST", "127.0.0.1:9180", "", "", 401},
		{token, "POST", "127.0.0.1:9180", "Bearer wrong", "", 401},
		{token, "POST", "127.0.0.1:9180", token, "", 401},
		{token, "POST", "crawler.example:9180", "Bearer " + token, "", 204},
		{token, "DELETE", "127.0.0.1:9180", "", "", 401},
		{token, "POST", "127.0.0.1:9180", "Bearer " + token, "cross-site", 403},
		{"", "POST", "127.0.0.1:9180", "", "", 204},
		{"", "POST", "localhost:9180", "", "", 204},
		{"", "POST", "[::1]:9180", "", "", 204},
		{"", "POST", "rebound.example:9180", "", "", 403},
		{"", "POST", "127.0.0.1:9180", "", "cross-site", 403},
		{"", "GET", "rebound.example:9180", "", "cross-site", 204},
	} {
		req := httptest.NewRequest(c.method, "/seeds", nil)
		req.Host = c.host
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.site != "" {
			req.Header.Set("Sec-Fetch-Site", c.site)
		}
		rec := httptest.NewRecorder()
		requireToken(ok, c.token).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("step %d: %s to %s with %q (token %q, %s): HTTP %d, want %d", i, c.method, c.host, c.auth, c.token, c.site, rec.Code, c.want)
		}
	}
}

// TestAPIFallbackSendsToken: when the control socket beside the state file
// does not answer, `seed`, `status` and `why` reach the crawl through
// http.listen, and a change sent that way carries http.token (it was
// refused with 401 before: the fallback sent no token).
func TestAPIFallbackSendsToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	var got int
	srv := httptest.NewServer(requireToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got++
		w.WriteHeader(http.StatusOK)
	}), token))
	defer srv.Close()
	listen := strings.TrimPrefix(srv.URL, "http://")
	state := filepath.Join(t.TempDir(), "state.db") // no crawl: its socket does not answer
	for _, c := range []struct {
		token string
		want  int
	}{{token, http.StatusOK}, {"", http.StatusUnauthorized}, {"wrong-token-0123456", http.StatusUnauthorized}} {
		resp, err := crawlAPI{state: state, listen: listen, token: c.token}.do("POST", "/seeds", "application/json", []byte(`{"urls":[]}`))
		if err != nil {
			t.Fatalf("token %q: %v", c.token, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("token %q: HTTP %d, want %d", c.token, resp.StatusCode, c.want)
		}
	}
	if got != 1 {
		t.Errorf("the crawl took %d changes, want 1 (only the one with the token)", got)
	}
	cfg := &Config{State: state}
	cfg.HTTP.Listen, cfg.HTTP.Token = listen, token
	if a := apiOf(cfg); a.token != token || a.listen != listen || a.state != state {
		t.Errorf("apiOf = %+v, want the config's state, listen and token", a)
	}
}
