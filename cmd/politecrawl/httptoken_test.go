package main

import (
	"net/http"
	"net/http/httptest"
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

// TestRequireToken: with a token, reads pass and changes need it.
func TestRequireToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	h := requireToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }), token)
	for _, c := range []struct {
		method, auth string
		want         int
	}{
		{"GET", "", 204},
		{"HEAD", "", 204},
		{"POST", "", 401},
		{"POST", "Bearer wrong", 401},
		{"POST", token, 401},
		{"POST", "Bearer " + token, 204},
		{"DELETE", "", 401},
	} {
		req := httptest.NewRequest(c.method, "/seeds", nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s with %q: HTTP %d, want %d", c.method, c.auth, rec.Code, c.want)
		}
	}
}
