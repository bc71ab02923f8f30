package urlnorm

import "strings"

// isPlainNormal reports whether raw is a URL Normalise would return
// unchanged, by a conservative test of its characters that needs no
// parse: "http://" or "https://"; a host of lower-case letters, digits,
// dots and hyphens (an IPv4 address in this form prints as written)
// without empty labels; an optional port of digits that is not the
// scheme's default; a path that starts with '/' and holds only unreserved
// characters and '/' with no dot segment; an optional non-empty query of
// unreserved characters, '=' and '&'; no fragment. Anything else, normal
// or not, is parsed (FuzzPlainNormal holds the two paths to one answer).
func isPlainNormal(raw string) bool {
	if len(raw) > MaxLength {
		return false
	}
	var rest, defaultPort string
	switch {
	case strings.HasPrefix(raw, "http://"):
		rest, defaultPort = raw[len("http://"):], "80"
	case strings.HasPrefix(raw, "https://"):
		rest, defaultPort = raw[len("https://"):], "443"
	default:
		return false
	}
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		return false // no path: Normalise adds "/"
	}
	authority, rest := rest[:end], rest[end:]
	host, port, hasPort := strings.Cut(authority, ":")
	if !plainHost(host) || hasPort && (port == "" || port == defaultPort || !allDigits(port)) {
		return false
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	return plainPath(path) && (!hasQuery || plainQuery(query))
}

func plainHost(h string) bool {
	if h == "" || h[0] == '.' || h[len(h)-1] == '.' || strings.Contains(h, "..") {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainPath: '/' then unreserved characters and '/', no segment "." or
// ".." (nor any segment starting with a dot: cheaper, and rare).
func plainPath(p string) bool {
	if p == "" || p[0] != '/' || strings.Contains(p, "/.") {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c != '/' && !isUnreserved(c) {
			return false
		}
	}
	return true
}

func plainQuery(q string) bool {
	if q == "" {
		return false // a bare '?' is dropped
	}
	for i := 0; i < len(q); i++ {
		if c := q[i]; c != '=' && c != '&' && !isUnreserved(c) {
			return false
		}
	}
	return true
}
