package main

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// The daemon's HTTP endpoint (http.listen) is read-only for anyone who can
// reach it: the console, /status, /metrics, /export. A request that
// changes the crawl (POST /seeds, /hosts/{host}/pause; any method but GET
// and HEAD) needs "Authorization: Bearer <http.token>" when http.token is
// set, and http.token must be set when http.listen is not a loopback
// address: the daemon refuses to start otherwise. Browsers' cross-site
// requests are refused either way (requireToken). The control socket
// beside the state file (mode 0600) needs no token: only the crawl's user
// can reach it.

// minTokenLen keeps a guessable token out.
const minTokenLen = 16

// tokenProblems reports an http.token the listen address needs.
func tokenProblems(listen, token string, bad func(key, format string, args ...any)) {
	switch {
	case token == "" && !isLoopback(listen):
		bad("http.token", "must be set when http.listen (%q) is not a loopback address: anyone who reaches it could add seeds; "+
			"set a random token of at least %d characters, or listen on 127.0.0.1", listen, minTokenLen)
	case token != "" && len(token) < minTokenLen:
		bad("http.token", "is %d characters: use at least %d (a random one, e.g. `openssl rand -hex 16`)", len(token), minTokenLen)
	}
}

// isLoopback reports whether a host:port listens on loopback only. An
// empty host (all interfaces) is not.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// requireToken guards the requests that change the crawl (any method but
// GET and HEAD) on http.listen: a browser's cross-origin request is
// refused (CSRF: a web page posting to the loopback port), and so is, with
// no token, one addressed to a host name rather than an IP or localhost
// (DNS rebinding: a page whose name resolves to 127.0.0.1). With a token,
// they need "Authorization: Bearer <token>" (401 otherwise).
func requireToken(h http.Handler, token string) http.Handler {
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		if token == "" && !addressedDirectly(r.Host) {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "changes without http.token are taken only when addressed to an IP address or localhost"})
			return
		}
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="politecrawl"`)
				writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "this request changes the crawl: send Authorization: Bearer <http.token>"})
				return
			}
		}
		h.ServeHTTP(w, r)
	})
	return http.NewCrossOriginProtection().Handler(guarded)
}

// addressedDirectly reports whether a request's Host is an IP literal or
// localhost (with or without a port).
func addressedDirectly(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return host == "localhost" || net.ParseIP(strings.Trim(host, "[]")) != nil
}
