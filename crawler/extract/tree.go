package extract

import (
	"io"
	"strings"

	"github.com/PuerkitoBio/goquery"
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
	if t := doc.Find("title").First(); t.Length() > 0 {
		s.gotTitle = true
		s.titleBuf.WriteString(truncate(t.Text(), maxTitle))
	}
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		s.base = &href
	}
	doc.Find("meta[name]").Each(func(_ int, m *goquery.Selection) {
		n := strings.TrimSpace(m.AttrOr("name", ""))
		if strings.EqualFold(n, "robots") || s.agent != "" && strings.EqualFold(n, s.agent) {
			s.meta.merge(ParseContent(m.AttrOr("content", "")))
		}
	})
	doc.Find("a[href], area[href]").Each(func(_ int, a *goquery.Selection) {
		if !hasRelNoFollow(a.AttrOr("rel", "")) {
			s.link(a.AttrOr("href", ""))
		}
	})
	return nil
}
