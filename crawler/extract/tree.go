package extract

import (
	"io"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
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
	doc.FindMatcher(wanted).Each(func(_ int, e *goquery.Selection) {
		switch goquery.NodeName(e) {
		case "title":
			if !s.gotTitle {
				s.gotTitle = true
				s.titleBuf.WriteString(truncate(e.Text(), maxTitle))
			}
		case "base":
			if s.base == nil {
				href := e.AttrOr("href", "")
				s.base = &href
			}
		case "meta":
			s.metaTag(e.AttrOr("name", ""), e.AttrOr("content", ""))
		default: // a, area
			if !hasRelNoFollow(e.AttrOr("rel", "")) {
				s.link(e.AttrOr("href", ""))
			}
		}
	})
	return nil
}

// wanted matches every element tree reads.
var wanted = cascadia.MustCompile("title, base[href], meta[name], a[href], area[href]")
