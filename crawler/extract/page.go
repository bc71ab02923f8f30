package extract

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// Bounds on what one page can make extraction hold.
const (
	// DefaultMaxLinks is the link cap when Options.MaxLinks is 0.
	DefaultMaxLinks = 10000
	// MaxURLLength is the longest link kept; longer ones are reported in
	// Page.Skipped (urlnorm refuses them too).
	MaxURLLength = 8192
	// MaxSkipped bounds Page.Skipped; further skipped links are only
	// counted in Page.SkippedMore.
	MaxSkipped = 1000
	// maxTitle bounds the title text read, in bytes.
	maxTitle = 4096
	// skippedPrefix is how much of a skipped URL is kept, in bytes.
	skippedPrefix = 2048
)

// Options tune extraction. The zero value extracts with no agent name and
// the default link cap.
type Options struct {
	// Agent is our product token, matched case-insensitively against
	// <meta name> and X-Robots-Tag prefixes. Empty: only "robots" applies.
	Agent string
	// MaxLinks caps Page.Links: once that many distinct links are held
	// (the fragment cut first: a#1 and a#2 are one link), the rest are
	// only counted in Page.LinksDropped. 0 means
	// DefaultMaxLinks; negative means no cap.
	MaxLinks int
}

// Page is what a crawler takes from one HTML document.
type Page struct {
	Title      string
	Links      []string // absolute http(s) URLs, fragment-free, deduplicated, in document order
	Directives Directives
	// LinksDropped counts the links past Options.MaxLinks, which are
	// neither kept nor deduplicated (only their fragments are cut: a
	// repeat of a kept link is not counted, one of a dropped link is).
	LinksDropped int
	// Skipped are links that were found but are not usable URLs (too long,
	// unparsable), at most MaxSkipped of them; SkippedMore counts the rest.
	Skipped     []Skipped
	SkippedMore int
	// TDM is the page's TDMRep meta tags, if any.
	TDM TDM
}

// TDM is what a page's <meta name="tdm-reservation"> and <meta
// name="tdm-policy"> say (W3C TDMRep), as written: the first of each
// counts. The crawl's content-use reading interprets them.
type TDM struct {
	Reservation string
	Policy      string
}

// Skipped is a link that extraction could not turn into a usable URL.
type Skipped struct {
	URL    string // the link, cut to its first 2,048 bytes plus "..." when longer
	Reason string // e.g. "URL longer than 8192 bytes", "invalid URL: ..."
}

// HTML is Parse with Options{Agent: agent, MaxLinks: -1}: every link is
// kept, as before Options existed. Crawlers should call Parse with their
// link cap, which bounds memory.
func HTML(body []byte, pageURL *url.URL, header http.Header, agent string) (*Page, error) {
	return Parse(body, pageURL, header, Options{Agent: agent, MaxLinks: -1})
}

// Parse reads body as an HTML document fetched from pageURL (the final
// URL, after redirects) with the given response headers. Documents up to
// treeMaxBytes are parsed into a tree with goquery; bigger ones, and any
// the tree parser refuses (nesting deeper than 512 elements), are streamed
// through the HTML tokenizer instead, which finds the same title, links
// and directives at any depth in time linear in the body. Memory is
// bounded by the body plus opts.MaxLinks links. It fails only if the body
// cannot be read.
func Parse(body []byte, pageURL *url.URL, header http.Header, opts Options) (*Page, error) {
	p, _, err := parse(body, pageURL, header, opts, auto)
	return p, err
}

// parser says how a document is read.
type parser int

const (
	auto       parser = iota // the tree when it fits and parses, else the stream
	treeOnly                 // goquery's tree or an error (tests)
	streamOnly               // the tokenizer stream (tests, and big documents)
)

// parse is Parse with the choice of parser made explicit; it also returns
// the parser that read the document.
func parse(body []byte, pageURL *url.URL, header http.Header, opts Options, how parser) (*Page, parser, error) {
	max := opts.MaxLinks
	if max == 0 {
		max = DefaultMaxLinks
	}
	var s *scan
	used := streamOnly
	if how == treeOnly || how == auto && len(body) <= treeMaxBytes {
		s = newScan(opts.Agent, max)
		if err := s.tree(decoded(body, header)); err == nil {
			used = treeOnly
		} else if how == treeOnly {
			return nil, treeOnly, fmt.Errorf("parse HTML: %w", err)
		}
	}
	if used == streamOnly {
		// The tree parser refused the document (or it is too big for a
		// tree): read it again as a stream, from a clean state.
		s = newScan(opts.Agent, max)
		if err := s.run(decoded(body, header)); err != nil {
			return nil, streamOnly, fmt.Errorf("parse HTML: %w", err)
		}
	}
	p := &Page{Title: s.title(), Directives: Header(header, opts.Agent), Links: []string{}}
	p.Directives.merge(s.meta)
	p.TDM = s.tdm
	if p.Directives.NoFollow {
		return p, used, nil
	}
	p.LinksDropped = s.dropped
	p.Skipped, p.SkippedMore = s.skipped, s.skippedMore
	base := baseURL(s.base, pageURL)
	prefix := plainPrefix(base)
	var links distinct
	for _, h := range s.hrefs.items {
		u, reason, ok := resolvePlain(prefix, h)
		if !ok {
			u, reason = resolve(base, h)
		}
		switch {
		case reason != "":
			p.skip(h, reason)
		case u == "" || links.has(u):
		case len(u) > MaxURLLength:
			p.skip(u, tooLong)
		default:
			links.add(u)
		}
	}
	if links.items != nil {
		p.Links = links.items
	}
	return p, used, nil
}

// decoded reads body as UTF-8, decoded from the charset the Content-Type
// header or a <meta charset> names (sniffed as the HTML standard says when
// neither does).
//
// Most pages are UTF-8 already: when the charset found is UTF-8 and the
// body is valid UTF-8 without a byte order mark, the decoder would change
// nothing, so the body is read as it is (charset.NewReader's two 4 KiB
// buffers were a fifth of all memory a crawl allocated). Most servers say
// so in the form declaresUTF8 reads, which spares charset's parse of the
// header (mime.ParseMediaType's map: a tenth of a small page's parse).
func decoded(body []byte, header http.Header) io.Reader {
	ct := header.Get("Content-Type")
	if declaresUTF8(ct) && !bytes.HasPrefix(body, utf8BOM) && utf8.Valid(body) {
		return bytes.NewReader(body)
	}
	e, name, _ := charset.DetermineEncoding(body, ct)
	if e == encoding.Nop || name == "utf-8" && !bytes.HasPrefix(body, utf8BOM) && utf8.Valid(body) {
		return bytes.NewReader(body)
	}
	return transform.NewReader(bytes.NewReader(body), e.NewDecoder())
}

// declaresUTF8 reports whether contentType is "text/html; charset=utf-8"
// (or application/xhtml+xml), in any case and with any white space around
// the parts: a type charset.DetermineEncoding reads as UTF-8 for certain
// when the body has no byte order mark (FuzzDeclaresUTF8 holds it to
// that; a UTF-16 one is not valid UTF-8). Other spellings take
// DetermineEncoding's own path.
func declaresUTF8(contentType string) bool {
	mt, param, ok := strings.Cut(contentType, ";")
	if !ok {
		return false
	}
	mt = strings.TrimSpace(mt)
	return (strings.EqualFold(mt, "text/html") || strings.EqualFold(mt, "application/xhtml+xml")) &&
		strings.EqualFold(strings.TrimSpace(param), "charset=utf-8")
}

var utf8BOM = []byte("\xef\xbb\xbf")

var tooLong = fmt.Sprintf("URL longer than %d bytes", MaxURLLength)

// skip records a link that is not usable, within MaxSkipped.
func (p *Page) skip(u, reason string) {
	if len(p.Skipped) >= MaxSkipped {
		p.SkippedMore++
		return
	}
	p.Skipped = append(p.Skipped, Skipped{URL: cut(u, skippedPrefix), Reason: reason})
}

// cut shortens s to at most n bytes, at a UTF-8 boundary, marking the cut
// with "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncate(s, n) + "..."
}

// truncate shortens s to at most n bytes without splitting a UTF-8
// sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
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
