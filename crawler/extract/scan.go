package extract

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// scan is one pass of the HTML tokenizer over a document, keeping only
// what a Page needs. The tokenizer builds no tree, so nesting costs
// nothing; what it holds is bounded by maxLinks hrefs and the body.
type scan struct {
	agent    string
	maxLinks int // < 0: no cap

	titleBuf strings.Builder
	inTitle  bool
	gotTitle bool
	base     *string // the first <base href>
	meta     Directives
	tdm      TDM  // the first tdm-reservation and tdm-policy meta tags
	gotTDM   bool // a tdm-reservation was seen (it may be empty)

	hrefs       distinct  // cleaned, followable, in document order
	dropped     int       // links past maxLinks
	skipped     []Skipped // links too long to hold
	skippedMore int
}

func newScan(agent string, maxLinks int) *scan {
	return &scan{agent: agent, maxLinks: maxLinks}
}

// run tokenizes r to its end. Only a read error is an error: the HTML
// tokenizer accepts any input.
func (s *scan) run(r io.Reader) error {
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		case html.TextToken:
			if s.inTitle && s.titleBuf.Len() < maxTitle {
				s.titleBuf.Write(z.Text())
			}
		case html.EndTagToken:
			if s.inTitle {
				if name, _ := z.TagName(); atom.Lookup(name) == atom.Title {
					s.inTitle = false
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			s.startTag(z)
		}
	}
}

func (s *scan) startTag(z *html.Tokenizer) {
	name, hasAttr := z.TagName()
	switch atom.Lookup(name) {
	case atom.Title:
		if !s.gotTitle {
			s.gotTitle, s.inTitle = true, true
		}
	case atom.Base:
		if s.base == nil && hasAttr {
			if a := attrs(z, "href", ""); a.ok[0] {
				s.base = &a.val[0]
			}
		}
	case atom.Meta:
		if hasAttr {
			a := attrs(z, "name", "content")
			s.metaTag(a.val[0], a.val[1])
		}
	case atom.A, atom.Area:
		if hasAttr {
			if a := attrs(z, "href", "rel"); a.ok[0] && !hasRelNoFollow(a.val[1]) {
				s.link(a.val[0])
			}
		}
	}
}

// metaTag reads one <meta name content>: robots directives for us, and
// TDMRep's tdm-reservation and tdm-policy (the first of each counts).
func (s *scan) metaTag(name, content string) {
	n := strings.TrimSpace(name)
	switch {
	case strings.EqualFold(n, "robots") || s.agent != "" && strings.EqualFold(n, s.agent):
		s.meta.merge(ParseContent(content))
	case strings.EqualFold(n, "tdm-reservation") && !s.gotTDM:
		s.tdm.Reservation, s.gotTDM = truncate(strings.TrimSpace(content), 64), true
	case strings.EqualFold(n, "tdm-policy") && s.tdm.Policy == "":
		s.tdm.Policy = truncate(strings.TrimSpace(content), 2048)
	}
}

// link keeps one <a>/<area> href, within the cap. The fragment is cut
// first: index.html#s1 and index.html#s2 are one page, and counted as
// distinct links they used up the cap (a contents page of anchors lost
// the real links after them) and inflated LinksDropped.
func (s *scan) link(href string) {
	h := withoutFragment(cleanHref(href))
	switch {
	case !followable(h) || s.hrefs.has(h):
	case len(h) > MaxURLLength:
		// Resolving cannot bring it under the limit in any real page;
		// report it now rather than hold it.
		if len(s.skipped) < MaxSkipped {
			s.skipped = append(s.skipped, Skipped{URL: cut(h, skippedPrefix), Reason: tooLong})
		} else {
			s.skippedMore++
		}
	case s.maxLinks >= 0 && len(s.hrefs.items) >= s.maxLinks:
		s.dropped++
	default:
		s.hrefs.add(h)
	}
}

func (s *scan) title() string {
	return cleanText(truncate(s.titleBuf.String(), maxTitle))
}

// attrSet holds the values of two attributes of one tag.
type attrSet struct {
	val [2]string
	ok  [2]bool
}

// attrs returns the first value of attributes a and b on the current tag
// (the HTML parser, too, keeps only the first of a name).
func attrs(z *html.Tokenizer, a, b string) attrSet {
	var out attrSet
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		for i, w := range [2]string{a, b} {
			if !out.ok[i] && w != "" && string(k) == w {
				out.val[i], out.ok[i] = string(v), true
			}
		}
	}
	return out
}
