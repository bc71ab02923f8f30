package archive

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

var leadingWWW = regexp.MustCompile(`^(https?://)www\d*\.`)

// SURT returns the sort-friendly key of an http(s) URL as pywb and warcio
// write it: lower case, a leading www dropped, host labels reversed and
// joined by commas, the port when it is not the scheme's default, ")",
// the path, and the query's arguments sorted. Other URLs are returned as
// they are.
func SURT(raw string) string {
	if !strings.HasPrefix(raw, "http:") && !strings.HasPrefix(raw, "https:") {
		return raw
	}
	s := strings.ToLower(leadingWWW.ReplaceAllString(raw, "$1"))
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return raw
	}
	labels := strings.Split(u.Hostname(), ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && !(u.Scheme == "http" && p == "80" || u.Scheme == "https" && p == "443") {
		key += ":" + p
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + path
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		sort.Strings(args)
		key += "?" + strings.Join(args, "&")
	}
	return key
}
