package extract

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"
)

func mustURL(t testing.TB, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestLinks(t *testing.T) {
	for _, c := range []struct {
		name, page, html string
		want             []string
	}{
		{"relative and absolute", "http://h/a/b.html",
			`<a href="c.html">1</a><a href="/d">2</a><a href="http://o/e#f">3</a><area href="../g">`,
			[]string{"http://h/a/c.html", "http://h/d", "http://o/e", "http://h/g"}},
		{"first base wins, resolved against page", "http://h/a/b.html",
			`<head><base href="/x/"><base href="http://other/"></head><a href="c">1</a>`,
			[]string{"http://h/x/c"}},
		{"base in body still counts", "http://h/a/",
			`<a href="c">1</a><base href="http://b/z/">`,
			[]string{"http://b/z/c"}},
		{"base without href ignored", "http://h/a/",
			`<base target="_top"><base href="/q/"><a href="c">1</a>`,
			[]string{"http://h/q/c"}},
		{"schemes dropped", "http://h/",
			`<a href="javascript:x()">j</a><a href="mailto:a@b">m</a><a href="tel:1">t</a><a href="data:text/html,x">d</a><a href="ftp://h/">f</a><a href="#top">t</a><a href="ok">ok</a>`,
			[]string{"http://h/ok"}},
		{"rel nofollow ugc sponsored", "http://h/",
			`<a rel="nofollow" href="/1">1</a><a rel="UGC" href="/2">2</a><a rel="external sponsored" href="/3">3</a><a rel="ugc,nofollow" href="/4">4</a><a rel="noopener" href="/5">5</a>`,
			[]string{"http://h/5"}},
		{"whitespace and backslashes", "http://h/a/",
			" <a href=\"  /x\ty\n \">1</a><a href=\"\\\\o\\p\">2</a>",
			[]string{"http://h/xy", "http://o/p"}},
		{"duplicates once", "http://h/", `<a href="/a">1</a><a href="/a#x">2</a><a href="/a">3</a>`, []string{"http://h/a"}},
		{"a without href", "http://h/", `<a name="x">1</a><link href="/css">`, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := HTML([]byte(c.html), mustURL(t, c.page), http.Header{}, "politecrawl")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Links, c.want) {
				t.Errorf("links %q, want %q", p.Links, c.want)
			}
		})
	}
}

func TestDirectives(t *testing.T) {
	for _, c := range []struct {
		name              string
		html              string
		header            []string
		noindex, nofollow bool
	}{
		{"none", `<meta name="robots" content="index, follow">`, nil, false, false},
		{"meta noindex", `<meta name="robots" content="noindex">`, nil, true, false},
		{"case-insensitive", `<META NAME="ROBOTS" CONTENT="NoIndex, NOFOLLOW">`, nil, true, true},
		{"none means both", `<meta name="robots" content="none">`, nil, true, true},
		{"space separated", `<meta name="robots" content="noindex nofollow">`, nil, true, true},
		{"our agent", `<meta name="PoliteCrawl" content="nofollow">`, nil, false, true},
		{"other agent ignored", `<meta name="googlebot" content="noindex">`, nil, false, false},
		{"meta in body", `<body><p>x</p><meta name="robots" content="noindex"></body>`, nil, true, false},
		{"combined sources", `<meta name="robots" content="nofollow"><meta name="politecrawl" content="noindex">`, nil, true, true},
		{"all does not cancel", `<meta name="robots" content="noindex"><meta name="robots" content="all">`, nil, true, false},
		{"header plain", ``, []string{"noindex"}, true, false},
		{"header list", ``, []string{"noindex, nofollow"}, true, true},
		{"header ours", ``, []string{"politecrawl: nofollow"}, false, true},
		{"header other agent", ``, []string{"googlebot: noindex, nofollow"}, false, false},
		{"header several", ``, []string{"googlebot: noindex", "nofollow"}, false, true},
		{"header switches agents", ``, []string{"googlebot: noindex, politecrawl: nofollow"}, false, true},
		{"header unavailable_after keeps its comma", ``, []string{"unavailable_after: Fri, 25 Jun 2010 15:00:00 PST, noindex"}, true, false},
		{"header max-snippet is not an agent", ``, []string{"max-snippet: 20, nofollow"}, false, true},
		{"header and meta", `<meta name="robots" content="nofollow">`, []string{"noindex"}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range c.header {
				h.Add("x-robots-tag", v)
			}
			p, err := HTML([]byte(c.html+`<a href="/l">l</a>`), mustURL(t, "http://h/"), h, "politecrawl")
			if err != nil {
				t.Fatal(err)
			}
			if p.Directives.NoIndex != c.noindex || p.Directives.NoFollow != c.nofollow {
				t.Errorf("noindex %v nofollow %v, want %v %v (%+v)", p.Directives.NoIndex, p.Directives.NoFollow, c.noindex, c.nofollow, p.Directives)
			}
			if c.nofollow != (len(p.Links) == 0) {
				t.Errorf("nofollow %v but links %q", c.nofollow, p.Links)
			}
		})
	}
}

func TestTitleAndHostileHTML(t *testing.T) {
	p, _ := HTML([]byte("<html><head><title>\n  Hello \t world </title></head></html>"), mustURL(t, "http://h/"), nil, "x")
	if p.Title != "Hello world" {
		t.Errorf("title %q", p.Title)
	}
	// Wide hostile markup parses; links are deduplicated.
	hostile := strings.Repeat("<p><a href='/x'>x</a><b><i></b></i></td></tr><form></form>", 20000) + "<title>late</title>\x00\xff"
	p, err := HTML([]byte(hostile), mustURL(t, "http://h/"), nil, "x")
	if err != nil || len(p.Links) != 1 {
		t.Fatalf("hostile HTML: %v", err)
	}
}

// TestDeepNesting: html.Parse refuses trees deeper than 512 elements; the
// tokenizer pass must find everything whatever the nesting (issue 8).
func TestDeepNesting(t *testing.T) {
	tail := `<title> Deep </title><base href="/b/"><meta name="robots" content="noarchive"><a href="x">x</a><area href="/y" rel="nofollow"><a href="z">z</a>`
	for _, c := range []struct {
		name, open string
		n          int
	}{
		{"div", "<div>", 20000},
		{"formatting elements", "<b><i><u>", 10000},
		{"tables", "<table><tr><td>", 5000},
		{"lists", "<ul><li>", 20000},
		{"just past the parser's bound", "<span>", 513},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := strings.Repeat(c.open, c.n) + tail
			p, err := HTML([]byte(body), mustURL(t, "http://h/a/"), nil, "x")
			if err != nil {
				t.Fatal(err)
			}
			if p.Title != "Deep" || !p.Directives.NoArchive {
				t.Errorf("title %q, directives %+v", p.Title, p.Directives)
			}
			if want := []string{"http://h/b/x", "http://h/b/z"}; !reflect.DeepEqual(p.Links, want) {
				t.Errorf("links %q, want %q", p.Links, want)
			}
		})
	}
}

func TestSkippedLinks(t *testing.T) {
	long := "http://h/" + strings.Repeat("a", MaxURLLength) // 8,201 bytes
	relLong := strings.Repeat("b", MaxURLLength-10)         // resolves past the limit
	for _, c := range []struct {
		name, html string
		links      []string
		skipped    []Skipped
	}{
		{"over-long href", `<a href="` + long + `">1</a><a href="/ok">2</a>`,
			[]string{"http://h/ok"}, []Skipped{{long[:2048] + "...", "URL longer than 8192 bytes"}}},
		{"over-long once resolved", `<base href="http://h/` + strings.Repeat("c", 20) + `/"><a href="` + relLong + `x">1</a>`,
			[]string{}, []Skipped{{("http://h/" + strings.Repeat("c", 20) + "/" + relLong)[:2048] + "...", "URL longer than 8192 bytes"}}},
		{"exactly the limit is kept", `<a href="` + long[:MaxURLLength] + `">1</a>`, []string{long[:MaxURLLength]}, nil},
		{"stray percent kept as %25, as urlnorm does", `<a href="/a%zz%4">1</a><a href="/100%">2</a>`,
			[]string{"http://h/a%25zz%254", "http://h/100%25"}, nil},
		{"bad host recorded", `<a href="http://h:port/">1</a><a href="http://[::1/">2</a>`,
			[]string{}, []Skipped{{"http://h:port/", `invalid URL: invalid port ":port" after host`}, {"http://[::1/", "invalid URL: missing ']' in host"}}},
		{"nofollow links are not recorded", `<a rel="nofollow" href="` + long + `">1</a>`, []string{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := HTML([]byte(c.html), mustURL(t, "http://h/"), nil, "x")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Links, c.links) {
				t.Errorf("links %.100q, want %.100q", p.Links, c.links)
			}
			if !reflect.DeepEqual(p.Skipped, c.skipped) {
				t.Errorf("skipped %.200v\nwant %.200v", p.Skipped, c.skipped)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		var sb strings.Builder
		for i := range MaxSkipped + 50 {
			fmt.Fprintf(&sb, `<a href="%s%d">x</a>`, long, i)
		}
		sb.WriteString(`<meta name="robots" content="noindex">`)
		p, _ := HTML([]byte(sb.String()), mustURL(t, "http://h/"), nil, "x")
		if len(p.Skipped) != MaxSkipped || p.SkippedMore != 50 {
			t.Errorf("skipped %d + %d more, want %d + 50", len(p.Skipped), p.SkippedMore, MaxSkipped)
		}
		for _, s := range p.Skipped {
			if len(s.URL) != 2048+3 {
				t.Fatalf("skipped URL of %d bytes", len(s.URL))
			}
		}
	})
	t.Run("page nofollow records nothing", func(t *testing.T) {
		p, _ := HTML([]byte(`<a href="`+long+`">1</a><meta name="robots" content="nofollow">`), mustURL(t, "http://h/"), nil, "x")
		if len(p.Skipped) != 0 || len(p.Links) != 0 {
			t.Errorf("nofollow page: skipped %d links %d", len(p.Skipped), len(p.Links))
		}
	})
}

func TestMaxLinks(t *testing.T) {
	var sb strings.Builder
	for i := range 25 {
		fmt.Fprintf(&sb, `<a href="/%d">x</a><a href="/%d">again</a>`, i, i)
	}
	body := []byte(sb.String())
	for _, c := range []struct {
		max, links, dropped int
	}{
		{10, 10, 30}, // repeats of kept links are not counted, of dropped ones are
		{25, 25, 0},
		{-1, 25, 0},
		{0, 25, 0}, // DefaultMaxLinks
	} {
		p, err := Parse(body, mustURL(t, "http://h/"), nil, Options{MaxLinks: c.max})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Links) != c.links || p.LinksDropped != c.dropped {
			t.Errorf("MaxLinks %d: %d links, %d dropped; want %d, %d", c.max, len(p.Links), p.LinksDropped, c.links, c.dropped)
		}
		if c.max > 0 && p.Links[len(p.Links)-1] != fmt.Sprintf("http://h/%d", c.links-1) {
			t.Errorf("MaxLinks %d: the first links in document order are kept, got %q", c.max, p.Links)
		}
	}
	p, _ := Parse(linkPage(DefaultMaxLinks+7, 0), mustURL(t, "http://h/"), nil, Options{})
	if len(p.Links) != DefaultMaxLinks || p.LinksDropped != 7 {
		t.Errorf("default cap: %d links, %d dropped", len(p.Links), p.LinksDropped)
	}
	p, _ = HTML(linkPage(DefaultMaxLinks+7, 0), mustURL(t, "http://h/"), nil, "x")
	if len(p.Links) != DefaultMaxLinks+7 || p.LinksDropped != 0 {
		t.Errorf("HTML has no cap: %d links, %d dropped", len(p.Links), p.LinksDropped)
	}
}

func TestIsHTML(t *testing.T) {
	for _, c := range []struct {
		ct   string
		body string
		want bool
	}{
		{"text/html; charset=utf-8", "", true},
		{"application/xhtml+xml", "", true},
		{"application/pdf", "%PDF", false},
		{"", "<!DOCTYPE html><html>", true},
		{"", "plain words", false},
	} {
		if got := IsHTML(c.ct, []byte(c.body)); got != c.want {
			t.Errorf("IsHTML(%q, %q) = %v", c.ct, c.body, got)
		}
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte(`<base href="/b/"><a href="x" rel="ugc">1</a><meta name="robots" content="none">`), "noindex, politecrawl: nofollow")
	f.Add([]byte(`<a href="\\h\x">`), "unavailable_after: Fri, 25 Jun 2010")
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		h := http.Header{}
		h.Add("X-Robots-Tag", header)
		p, err := HTML(body, mustURL(t, "http://h/a/"), h, "politecrawl")
		if err != nil {
			return
		}
		if p.Directives.NoFollow && len(p.Links) != 0 {
			t.Fatal("nofollow page with links")
		}
		for _, l := range p.Links {
			u, err := url.Parse(l)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Fragment != "" {
				t.Fatalf("bad link %q", l)
			}
		}
	})
}

// FuzzExtractDeep drives the tokenizer stream, the fallback for documents
// the tree parser refuses: wrapping any document in more elements than
// html.Parse's 512-deep bound changes nothing it finds (Parse falls back to
// the stream for the deep one), and every answer stays within its bounds.
func FuzzExtractDeep(f *testing.F) {
	f.Add([]byte(`<title>t</title><base href="/b/"><a href="x">1</a><meta name="robots" content="noindex">`), 3)
	f.Add([]byte(`<a href="/a%zz">1</a><a href="http://h:x/">2</a><area href="y">`), 0)
	f.Add([]byte(`<svg><title>s</title></svg><textarea><a href="/no"></textarea><a href=/yes>`), 1)
	h := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	f.Fuzz(func(t *testing.T, body []byte, max int) {
		max = max%20 - 1 // -1 (no cap) to 18
		opts := Options{Agent: "politecrawl", MaxLinks: max}
		flat, _, err := parse(body, mustURL(t, "http://h/a/"), h, opts, streamOnly)
		if err != nil {
			t.Fatal(err)
		}
		deep, err := Parse(append([]byte(strings.Repeat("<div>", 600)), body...), mustURL(t, "http://h/a/"), h, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(flat, deep) {
			t.Fatalf("nesting changed the result:\n%+v\n%+v", flat, deep)
		}
		limit := max
		if max == 0 {
			limit = DefaultMaxLinks
		}
		if max >= 0 && len(flat.Links) > limit || len(flat.Skipped) > MaxSkipped || len(flat.Title) > maxTitle {
			t.Fatalf("bounds: %d links (max %d), %d skipped, title %d bytes", len(flat.Links), max, len(flat.Skipped), len(flat.Title))
		}
		for _, l := range flat.Links {
			if len(l) > MaxURLLength {
				t.Fatalf("link of %d bytes", len(l))
			}
		}
	})
}

func BenchmarkHTML(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<html><head><title>Bench</title><meta name=robots content='index,follow'></head><body>")
	for i := 0; i < 200; i++ {
		sb.WriteString(`<p>Some text here <a href="/page/` + strings.Repeat("x", i%10) + `">link</a></p>`)
	}
	body := []byte(sb.String())
	u := mustURL(b, "http://h/a/")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		HTML(body, u, nil, "politecrawl")
	}
}

func TestCharsets(t *testing.T) {
	for _, c := range []struct {
		name, ct, body string
		want           string // the title; "" for Café
	}{
		{"header", "text/html; charset=iso-8859-1", "<title>Caf\xe9</title>", ""},
		{"meta", "text/html", "<meta charset=\"windows-1252\"><title>Caf\xe9</title>", ""},
		{"utf-8", "text/html; charset=utf-8", "<title>Café</title>", ""},
		// UTF-8 pages valid and without a byte order mark are read as
		// they are; the others still go through the decoder.
		{"utf-8 sniffed", "text/html", "<title>Café</title>", ""},
		{"utf-8 with BOM", "text/html; charset=utf-8", "\xef\xbb\xbf<title>Café</title>", ""},
		{"BOM, no header", "", "\xef\xbb\xbf<title>Café</title>", ""},
		{"utf-8 declared, invalid bytes", "text/html; charset=utf-8", "<title>Café\xff</title>", "Café\ufffd"},
		// A byte order mark outweighs the header (UTF-16 here).
		{"utf-16 BOM, utf-8 declared", "text/html; charset=utf-8", utf16LE("<title>Café</title>"), ""},
		{"utf-8, spelt otherwise", " TEXT/HTML ;\tCharset=UTF-8 ", "<title>Café</title>", ""},
		{"latin-1 in a utf-8 header's shape", "text/html; charset=latin1", "<title>Caf\xe9</title>", ""},
	} {
		h := http.Header{"Content-Type": {c.ct}}
		p, err := HTML([]byte(c.body), mustURL(t, "http://h/"), h, "x")
		want := "Café"
		if c.want != "" {
			want = c.want
		}
		if err != nil || p.Title != want {
			t.Errorf("%s: title %q, %v", c.name, p.Title, err)
		}
	}
}

// utf16LE encodes s (ASCII and Latin-1 only) as UTF-16LE with its byte
// order mark.
func utf16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return string(b)
}

// FuzzDeclaresUTF8: a Content-Type that declaresUTF8 accepts is one the
// charset package reads as UTF-8 for certain, so skipping it changes no
// page.
func FuzzDeclaresUTF8(f *testing.F) {
	for _, ct := range []string{"text/html; charset=utf-8", "Text/HTML;CHARSET=UTF-8", "text/html; charset=utf-8;", "text/html ; charset = utf-8",
		"application/xhtml+xml; charset=utf-8", "text/html; charset=\"utf-8\"", "text/plain; charset=utf-8", "text/html;\vcharset=utf-8"} {
		f.Add(ct)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if !declaresUTF8(ct) {
			return
		}
		if _, name, certain := charset.DetermineEncoding([]byte("<p>x</p>"), ct); name != "utf-8" || !certain {
			t.Fatalf("declaresUTF8(%q), but the charset package reads %q (certain %v)", ct, name, certain)
		}
	})
}

// TestLinkCapCountsPagesNotFragments: links that differ only in their
// fragment are one link, for the cap and for LinksDropped. A contents
// page of 10,000 anchors into one page and a real link after them keeps
// the real link; before, the anchors used up the cap and it was dropped.
func TestLinkCapCountsPagesNotFragments(t *testing.T) {
	fragments := func(n int, tail string) []byte {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, `<a href="index.html#s%d">%d</a>`, i, i)
		}
		return []byte(sb.String() + tail)
	}
	for _, c := range []struct {
		name    string
		body    []byte
		max     int
		want    []string
		dropped int
	}{
		{"10,000 anchors and a real link", fragments(10000, `<a href="/real">real</a>`), 0,
			[]string{"http://h/docs/index.html", "http://h/real"}, 0},
		{"anchors into kept and dropped pages", []byte(`<a href="a#1">a</a><a href="a#2">a</a><a href="b#x">b</a>` +
			`<a href="c#1">c</a><a href="b">b</a>`), 2,
			[]string{"http://h/docs/a", "http://h/docs/b"}, 1},
		{"absolute URLs with fragments", []byte(`<a href="http://o/p#top">1</a><a href="http://o/p#end">2</a><a href="http://o/q">3</a>`), 2,
			[]string{"http://o/p", "http://o/q"}, 0},
	} {
		for _, how := range []parser{treeOnly, streamOnly} {
			p, _, err := parse(c.body, mustURL(t, "http://h/docs/index.html"), nil, Options{MaxLinks: c.max}, how)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Links, c.want) || p.LinksDropped != c.dropped {
				t.Errorf("%s (parser %d): links %q, %d dropped; want %q, %d", c.name, how, p.Links, p.LinksDropped, c.want, c.dropped)
			}
		}
	}
}
