package extract

import (
	"io"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// treeMaxBytes is the largest body parsed into a goquery tree. A parsed
// tree costs many times its source (a node per element and text run, each
// with its attributes): a 10 MiB page of links became hundreds of MB. The
// tokenizer stream finds the same things in memory bounded by the body
// plus the link cap, so bigger pages take that path.
const treeMaxBytes = 1 << 20

// tree fills s from goquery's document of r: the first <title>, the first
// <base href>, every <meta name> for robots or our agent, and the <a> and
// <area> links not marked nofollow, ugc or sponsored, in tree order. The
// links go through the same s.link as the stream's (cap, duplicates,
// over-long links), so both paths make the same Page. It fails when
// html.Parse does: a document nested deeper than 512 open elements.
func (s *scan) tree(r io.Reader) error {
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		return err
	}
	// One walk in document order with a selector compiled once: four
	// Find calls cost four walks and four selector compilations a page.
	// The matches are read as nodes, not through Each: a Selection per
	// match and goquery's attribute helpers were a tenth of a small
	// page's parse. attr and text read what AttrOr and Text do.
	for _, n := range doc.FindMatcher(wanted).Nodes {
		switch n.Data {
		case "title":
			if !s.gotTitle {
				s.gotTitle = true
				s.titleBuf.WriteString(truncate(text(n), maxTitle))
			}
		case "base":
			if s.base == nil {
				href := attr(n, "href")
				s.base = &href
			}
		case "meta":
			s.metaTag(attr(n, "name"), attr(n, "content"))
		default: // a, area
			if !hasRelNoFollow(attr(n, "rel")) {
				s.link(attr(n, "href"))
			}
		}
	}
	return nil
}

// attr is the value of n's first attribute named key, "" if none (as
// goquery's AttrOr(key, "")).
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the text of n and its descendants, concatenated in document
// order (as goquery's Text).
func text(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode && c.FirstChild == nil {
		return c.Data // a <title>'s one text node: no copy
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// wanted matches every element tree reads.
var wanted = cascadia.MustCompile("title, base[href], meta[name], a[href], area[href]")
