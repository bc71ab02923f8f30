package sitemap

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// shape says where the entries of one XML format are.
type shape struct {
	format  Format
	item    string   // element holding one entry
	loc     string   // element holding its URL ("" for Atom: link@href)
	lastmod []string // elements holding its date
	ns      func(string) bool
}

var shapes = map[string]shape{
	"urlset":       {URLSet, "url", "loc", []string{"lastmod"}, sitemapNS},
	"sitemapindex": {Index, "sitemap", "loc", []string{"lastmod"}, sitemapNS},
	"rss":          {RSS, "item", "link", []string{"pubDate"}, noNS},
	"feed":         {Atom, "entry", "", []string{"updated", "modified"}, atomNS},
}

// sitemapNS accepts the sitemaps.org namespace over http or https, with or
// without a trailing slash, Google's old ones, or none.
func sitemapNS(ns string) bool {
	n := strings.TrimSuffix(strings.ToLower(ns), "/")
	n = strings.TrimPrefix(strings.TrimPrefix(n, "http://"), "https://")
	switch n {
	case "", "www.sitemaps.org/schemas/sitemap/0.9", "sitemaps.org/schemas/sitemap/0.9",
		"www.google.com/schemas/sitemap/0.84", "www.google.com/schemas/sitemap/0.9":
		return true
	}
	return false
}

func noNS(ns string) bool { return ns == "" }

func atomNS(ns string) bool {
	switch strings.TrimSuffix(ns, "/") {
	case "", "http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#":
		return true
	}
	return false
}

// maxField bounds the text kept for one element: a URL or a date.
const maxField = MaxURLLength + 64

// nsScope resolves element prefixes: RawToken leaves them unresolved,
// and doing it here is far cheaper than Token's copying. Sitemaps declare
// namespaces at the root, so the stack is almost always one frame deep.
type nsScope struct {
	frames []nsFrame
}

type nsFrame struct {
	depth int
	decls map[string]string // prefix ("" = default) -> URI
}

func (s *nsScope) push(depth int, attrs []xml.Attr) {
	var decls map[string]string
	for _, a := range attrs {
		switch {
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			if decls == nil {
				decls = map[string]string{}
			}
			decls[""] = a.Value
		case a.Name.Space == "xmlns":
			if decls == nil {
				decls = map[string]string{}
			}
			decls[a.Name.Local] = a.Value
		}
	}
	if decls != nil {
		s.frames = append(s.frames, nsFrame{depth, decls})
	}
}

func (s *nsScope) pop(depth int) {
	if n := len(s.frames); n > 0 && s.frames[n-1].depth == depth {
		s.frames = s.frames[:n-1]
	}
}

// resolve returns the namespace URI of a prefix ("" = the default).
func (s *nsScope) resolve(prefix string) string {
	for i := len(s.frames) - 1; i >= 0; i-- {
		if u, ok := s.frames[i].decls[prefix]; ok {
			return u
		}
	}
	if prefix != "" {
		return "urn:undeclared:" + prefix // an unknown prefix is an extension
	}
	return ""
}

func parseXML(in io.Reader, res *Result, emit func(Entry) error) error {
	d := xml.NewDecoder(in)
	d.CharsetReader = charset.NewReaderLabel
	var ns nsScope
	var p xmlItems
	haveRoot, depth := false, 0
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			if !haveRoot {
				return fmt.Errorf("sitemap: no root element")
			}
			return nil
		}
		if err != nil {
			if isLimit(err) {
				return err
			}
			return fmt.Errorf("sitemap %s: %w", p.sh.format, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			ns.push(depth, t.Attr)
			space := ns.resolve(t.Name.Space)
			if !haveRoot {
				s, ok := shapes[t.Name.Local]
				if !ok || !s.ns(space) {
					return fmt.Errorf("sitemap: root <%s> in namespace %q is not a sitemap, index or feed", t.Name.Local, space)
				}
				p.sh, haveRoot, res.Format = s, true, s.format
				continue
			}
			if p.sh.ns(space) { // else an extension
				p.start(t, depth)
			}
		case xml.CharData:
			if p.field != "" && p.text.Len() < maxField {
				p.text.Write(t)
			}
		case xml.EndElement:
			if err := p.end(depth, emit); err != nil {
				return err
			}
			ns.pop(depth)
			depth--
		}
	}
}

// xmlItems follows the items (url, sitemap, item, entry) of a document of
// one shape, and the fields of the one being read.
type xmlItems struct {
	sh        shape
	itemDepth int // 0: not inside an item
	field     string
	text      strings.Builder
	cur       Entry
	haveLink  bool
}

// start takes an element of the document's namespace at depth.
func (p *xmlItems) start(t xml.StartElement, depth int) {
	switch {
	case p.itemDepth == 0 && t.Name.Local == p.sh.item:
		p.itemDepth, p.cur, p.haveLink = depth, Entry{}, false
	case p.itemDepth != 0 && depth == p.itemDepth+1:
		if p.sh.format == Atom && t.Name.Local == "link" {
			if href, ok := atomLink(t); ok && !p.haveLink {
				p.cur.URL, p.haveLink = href, true
			}
			return
		}
		if t.Name.Local == p.sh.loc || contains(p.sh.lastmod, t.Name.Local) ||
			p.sh.format == URLSet && t.Name.Local == "changefreq" {
			p.field = t.Name.Local
			p.text.Reset()
		}
	}
}

// end closes the element at depth: a field keeps its text, an item is
// emitted.
func (p *xmlItems) end(depth int, emit func(Entry) error) error {
	if p.field != "" && depth == p.itemDepth+1 {
		v := strings.TrimSpace(p.text.String())
		if p.field == p.sh.loc {
			if !p.haveLink {
				p.cur.URL, p.haveLink = v, true
			}
		} else if p.field == "changefreq" {
			p.cur.Changefreq = changefreq(v)
		} else if p.cur.Lastmod.IsZero() {
			p.cur.Lastmod = ParseDate(v)
		}
		p.field = ""
	}
	if p.itemDepth != 0 && depth == p.itemDepth {
		if err := emit(p.cur); err != nil {
			return err
		}
		p.itemDepth = 0
	}
	return nil
}

func isLimit(err error) bool {
	for e := err; e != nil; {
		if e == errTooBig || e == errTooMany {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// atomLink returns the href of an Atom <link> that names the entry itself
// (rel="alternate" or no rel).
func atomLink(t xml.StartElement) (string, bool) {
	var href, rel string
	for _, a := range t.Attr {
		switch a.Name.Local {
		case "href":
			href = a.Value
		case "rel":
			rel = a.Value
		}
	}
	return href, href != "" && (rel == "" || rel == "alternate")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	w3cLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02T15:04"}
	rfc822     = []string{time.RFC1123Z, time.RFC1123, "Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST",
		time.RFC822Z, time.RFC822, "2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 MST", "Mon, 02 Jan 06 15:04:05 -0700"}
)

// ParseDate reads a W3C datetime (sitemaps, Atom) or an RFC 822 date
// (RSS); zero when it is neither. It picks layouts by the value's shape,
// since a sitemap may hold 50,000 of them.
func ParseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	var layouts []string
	switch {
	case s[0] < '0' || s[0] > '9' || len(s) > 4 && s[1] == ' ' || len(s) > 4 && s[2] == ' ':
		layouts = rfc822
	case len(s) == 4:
		layouts = []string{"2006"}
	case len(s) == 7:
		layouts = []string{"2006-01"}
	case len(s) == 10:
		layouts = []string{"2006-01-02"}
	default:
		layouts = w3cLayouts
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// changefreq is v as a changefreq value the protocol defines, lowercased,
// or "".
func changefreq(v string) string {
	switch v = strings.ToLower(v); v {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		return v
	}
	return ""
}
