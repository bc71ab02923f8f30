package extract

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html/charset"
)

// Page is what a crawler takes from one HTML document.
type Page struct {
	Title      string
	Links      []string // absolute http(s) URLs, fragment-free, deduplicated, in document order
	Directives Directives
}

// HTML parses body as an HTML document fetched from pageURL (the final URL,
// after redirects) with the given response headers, for agent (a product
// token). It never fails on malformed HTML: the HTML5 parsing algorithm
// accepts any input.
func HTML(body []byte, pageURL *url.URL, header http.Header, agent string) (*Page, error) {
	// Decode to UTF-8 from the charset the Content-Type header or a <meta
	// charset> names (sniffed as the HTML standard says when neither does).
	var in io.Reader = bytes.NewReader(body)
	if r, err := charset.NewReader(in, header.Get("Content-Type")); err == nil {
		in = r
	} else {
		in = bytes.NewReader(body)
	}
	doc, err := goquery.NewDocumentFromReader(in)
	if err != nil {
		return nil, fmt.Errorf("parse HTML: %w", err)
	}
	p := &Page{Title: cleanText(doc.Find("title").First().Text())}
	p.Directives = Header(header, agent)
	doc.Find("meta[name]").Each(func(_ int, s *goquery.Selection) {
		name := strings.TrimSpace(s.AttrOr("name", ""))
		if strings.EqualFold(name, "robots") || agent != "" && strings.EqualFold(name, agent) {
			p.Directives.merge(ParseContent(s.AttrOr("content", "")))
		}
	})
	if p.Directives.NoFollow {
		p.Links = []string{}
		return p, nil
	}
	base := baseURL(doc, pageURL)
	seen := map[string]bool{}
	p.Links = []string{}
	doc.Find("a[href], area[href]").Each(func(_ int, s *goquery.Selection) {
		if hasRelNoFollow(s.AttrOr("rel", "")) {
			return
		}
		if u := resolve(base, s.AttrOr("href", "")); u != "" && !seen[u] {
			seen[u] = true
			p.Links = append(p.Links, u)
		}
	})
	return p, nil
}

// baseURL is the first <base href>, resolved against the page URL; the
// page URL when there is none or it does not parse.
func baseURL(doc *goquery.Document, pageURL *url.URL) *url.URL {
	href, ok := doc.Find("base[href]").First().Attr("href")
	if !ok {
		return pageURL
	}
	ref, err := url.Parse(cleanHref(href))
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

// cleanHref does what the URL Standard does before parsing and Go's
// net/url does not: trim ASCII white space, drop tabs and newlines inside,
// and read backslashes as slashes.
func cleanHref(h string) string {
	h = strings.Trim(h, " \t\n\r\f")
	h = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(h)
	return strings.ReplaceAll(h, `\`, "/")
}

func resolve(base *url.URL, href string) string {
	h := cleanHref(href)
	if h == "" || h[0] == '#' {
		return ""
	}
	ref, err := url.Parse(h)
	if err != nil {
		return ""
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "" // javascript:, mailto:, tel:, data: and the like
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

func cleanText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// IsHTML reports whether a Content-Type names an HTML document. A missing
// type is sniffed from the body.
func IsHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	ct := strings.ToLower(contentType)
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml+xml")
}
