package extract

import (
	"errors"
	"net/url"
	"strings"
)

// baseURL is the first <base href>, resolved against the page URL; the
// page URL when there is none or it does not parse.
func baseURL(href *string, pageURL *url.URL) *url.URL {
	if href == nil {
		return pageURL
	}
	ref, err := url.Parse(fixStrayPercent(cleanHref(*href)))
	if err != nil {
		return pageURL
	}
	return pageURL.ResolveReference(ref)
}

func hasRelNoFollow(rel string) bool {
	for _, tok := range strings.FieldsFunc(rel, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }) {
		switch strings.ToLower(tok) {
		case "nofollow", "ugc", "sponsored":
			return true
		}
	}
	return false
}

var hrefCleaner = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/")

// cleanHref does what the URL Standard does before parsing and Go's
// net/url does not: trim ASCII white space, drop tabs and newlines inside,
// and read backslashes as slashes.
func cleanHref(h string) string {
	h = strings.Trim(h, " \t\n\r\f")
	if strings.ContainsAny(h, "\t\n\r\\") {
		h = hrefCleaner.Replace(h)
	}
	return h
}

// withoutFragment cuts a cleaned href at its first '#', where a URL's
// fragment starts; a bare fragment becomes "", which is not followable.
func withoutFragment(h string) string {
	if i := strings.IndexByte(h, '#'); i >= 0 {
		return h[:i]
	}
	return h
}

// followable reports whether a cleaned href may lead to an http(s) URL:
// not empty, not a bare fragment, and with no scheme or an http(s) one
// (javascript:, mailto:, tel:, data: and the like are not links to crawl).
func followable(h string) bool {
	if h == "" || h[0] == '#' {
		return false
	}
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == ':':
			s := h[:i]
			return i == 0 || strings.EqualFold(s, "http") || strings.EqualFold(s, "https")
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return true // no scheme: a relative reference
		}
	}
	return true
}

// resolve turns a cleaned href into an absolute, fragment-free http(s)
// URL. It returns "" for links that are not to be crawled, and a reason
// for links that cannot be parsed.
func resolve(base *url.URL, h string) (string, string) {
	ref, err := url.Parse(fixStrayPercent(h))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", "invalid URL: " + err.Error()
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "" // javascript:, mailto:, tel:, data: and the like
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), ""
}

// fixStrayPercent encodes a '%' that starts no escape as %25, as
// frontier/urlnorm does, instead of refusing the URL as net/url would.
func fixStrayPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			if b.Len() == 0 {
				b.Grow(len(s) + 8)
				b.WriteString(s[:i])
			}
			b.WriteString("%25")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(s[i])
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func cleanText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
