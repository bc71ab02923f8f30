package extract

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
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
	// Nesting deeper than the HTML parser's bound is a clear error, not a
	// crash or unbounded work.
	deep := strings.Repeat("<div>", 20000)
	if _, err := HTML([]byte(deep), mustURL(t, "http://h/"), nil, "x"); err == nil {
		t.Error("20,000 nested elements should be refused with an error")
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
	}{
		{"header", "text/html; charset=iso-8859-1", "<title>Caf\xe9</title>"},
		{"meta", "text/html", "<meta charset=\"windows-1252\"><title>Caf\xe9</title>"},
		{"utf-8", "text/html; charset=utf-8", "<title>Café</title>"},
	} {
		h := http.Header{"Content-Type": {c.ct}}
		p, err := HTML([]byte(c.body), mustURL(t, "http://h/"), h, "x")
		if err != nil || p.Title != "Café" {
			t.Errorf("%s: title %q, %v", c.name, p.Title, err)
		}
	}
}
