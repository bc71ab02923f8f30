package scope

import (
	"errors"
	"fmt"
	"strings"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
)

// A prefix rule, once read: a URL prefix in normal form, or a domain (a
// SURT prefix that stops after a host label: "http://(org,example,").
type prefix struct {
	url    string // normal URL prefix; "" for a domain
	domain string
}

// parsePrefix reads a URL prefix or a SURT prefix. Scheme and host are
// normalised as URLs are, the path kept as written (percent-encoding made
// canonical by the normaliser), so that it compares with normal URLs.
func parsePrefix(raw string) (prefix, error) {
	s := strings.TrimSpace(raw)
	if strings.Contains(s, "(") {
		return parseSURT(s)
	}
	n, err := urlnorm.Normalise(s)
	if err != nil {
		return prefix{}, fmt.Errorf("not a URL prefix (want scheme://host/path...): %w", err)
	}
	if !strings.Contains(s[strings.Index(s, "://")+3:], "/") {
		// "https://example.org" is the whole host: the normaliser adds
		// the "/" that every URL of it starts with.
		return prefix{url: n}, nil
	}
	if strings.HasSuffix(s, "?") && !strings.HasSuffix(n, "?") {
		n += "?" // the normaliser drops an empty query
	}
	return prefix{url: n}, nil
}

// parseSURT reads a SURT prefix: [scheme://](tld,domain,host,)path. Host
// labels come in reverse order, each followed by ','; a ')' closes the
// host (the prefix then names that host and a path prefix), and a prefix
// that stops after a label's ',' names that domain and its subdomains.
func parseSURT(s string) (prefix, error) {
	scheme := ""
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, s = strings.ToLower(s[:i]), s[i+3:]
	}
	if !strings.HasPrefix(s, "(") {
		return prefix{}, errors.New("not a SURT prefix: want (tld,domain,...,)")
	}
	s = s[1:]
	hostPart, path, closed := strings.Cut(s, ")")
	if !closed && !strings.HasSuffix(hostPart, ",") {
		return prefix{}, errors.New("not a SURT prefix: a host label must end with ','")
	}
	labels := strings.Split(strings.TrimSuffix(hostPart, ","), ",")
	port := ""
	if last := labels[len(labels)-1]; strings.Contains(last, ":") {
		// (org,example,www:8080,)
		labels[len(labels)-1], port, _ = strings.Cut(last, ":")
	}
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	host := strings.Join(labels, ".")
	if host == "" || strings.Contains(host, "..") {
		return prefix{}, fmt.Errorf("not a SURT prefix: empty host label in %q", hostPart)
	}
	if !closed {
		if port != "" || scheme != "" && scheme != "http" && scheme != "https" {
			return prefix{}, errors.New("not a SURT prefix: a domain prefix has no port")
		}
		d, err := parseDomain(host)
		return prefix{domain: d}, err
	}
	if scheme == "" {
		return prefix{}, errors.New("not a SURT prefix: a prefix naming a path needs its scheme (http:// or https://)")
	}
	if port != "" {
		host += ":" + port
	}
	if path == "" {
		path = "/"
	}
	return parsePrefix(scheme + "://" + host + path)
}

// parseDomain normalises a domain as hosts are normalised.
func parseDomain(raw string) (string, error) {
	d := strings.TrimPrefix(strings.TrimSpace(raw), ".")
	if d == "" || strings.ContainsAny(d, "/:?#@ ") {
		return "", fmt.Errorf("not a domain (want a name like example.org): %q", raw)
	}
	n, err := urlnorm.Normalise("http://" + d + "/")
	if err != nil {
		return "", fmt.Errorf("not a domain: %w", err)
	}
	return urlnorm.Authority(n), nil
}
