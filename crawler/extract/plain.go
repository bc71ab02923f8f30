package extract

import (
	"net/url"
	"strings"
)

// Most links on a page are absolute paths ("/p/15") or absolute http(s)
// URLs of plain characters. Resolving those needs no parse: a plain
// absolute URL resolves to itself, a plain absolute path to the base's
// scheme and authority followed by it. resolvePlain does that and leaves
// every other href to resolve, which parses it (url.Parse, ResolveReference
// and String: three allocations and most of a link's cost).
// FuzzResolvePlain holds the two to one answer.

// plainPrefix is "scheme://authority" of base as its String would write
// it, or "" when base is not an http(s) URL with a host and no user
// information (its absolute paths then go through resolve).
func plainPrefix(base *url.URL) string {
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" || base.User != nil || base.Opaque != "" {
		return ""
	}
	return (&url.URL{Scheme: base.Scheme, Host: base.Host}).String()
}

// resolvePlain resolves a cleaned, fragment-free href the way resolve
// does, when it is plain (see plainURL and plainPathQuery); ok is false
// when it is not, and the href must go to resolve.
func resolvePlain(prefix, h string) (u, reason string, ok bool) {
	switch {
	case strings.HasPrefix(h, "/") && !strings.HasPrefix(h, "//"):
		if prefix == "" || !plainPathQuery(h) {
			return "", "", false
		}
		return prefix + h, "", true
	case plainURL(h):
		return h, "", true
	}
	return "", "", false
}

// plainURL reports whether h is "http://" or "https://", a host of
// letters, digits, dots and hyphens, an optional port of digits, and a
// plain path and query (plainPathQuery).
func plainURL(h string) bool {
	var rest string
	switch {
	case strings.HasPrefix(h, "http://"):
		rest = h[len("http://"):]
	case strings.HasPrefix(h, "https://"):
		rest = h[len("https://"):]
	default:
		return false
	}
	end := strings.IndexByte(rest, '/')
	if end <= 0 {
		return false
	}
	host, port, hasPort := strings.Cut(rest[:end], ":")
	if host == "" || hasPort && port == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return plainPathQuery(rest[end:])
}

// plainPathQuery reports whether p is a path of unreserved characters and
// '/' with no segment starting with a dot (so no "." or ".." to remove),
// then optionally '?' and a non-empty query of unreserved characters,
// '=' and '&': text that parsing and printing give back unchanged.
func plainPathQuery(p string) bool {
	path, query, hasQuery := strings.Cut(p, "?")
	if strings.Contains(path, "/.") || hasQuery && query == "" {
		return false
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; c != '/' && !unreserved(c) {
			return false
		}
	}
	for i := 0; i < len(query); i++ {
		if c := query[i]; c != '=' && c != '&' && !unreserved(c) {
			return false
		}
	}
	return true
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
