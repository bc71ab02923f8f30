package extract

import (
	"bytes"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html/charset"
)

// treeHTML is the extraction this package did before the tokenizer pass:
// goquery over html.Parse's tree. It is the reference the tokenizer pass is
// compared with on documents the tree parser accepts.
func treeHTML(body []byte, pageURL *url.URL, header http.Header, agent string) (*Page, error) {
	in, err := charset.NewReader(bytes.NewReader(body), header.Get("Content-Type"))
	if err != nil {
		in = bytes.NewReader(body)
	}
	doc, err := goquery.NewDocumentFromReader(in)
	if err != nil {
		return nil, err
	}
	p := &Page{Title: cleanText(doc.Find("title").First().Text()), Links: []string{}}
	p.Directives = Header(header, agent)
	doc.Find("meta[name]").Each(func(_ int, s *goquery.Selection) {
		name := strings.TrimSpace(s.AttrOr("name", ""))
		if strings.EqualFold(name, "robots") || agent != "" && strings.EqualFold(name, agent) {
			p.Directives.merge(ParseContent(s.AttrOr("content", "")))
		}
	})
	if p.Directives.NoFollow {
		return p, nil
	}
	var basePtr *string
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		basePtr = &href
	}
	base := baseURL(basePtr, pageURL)
	seen := map[string]bool{}
	doc.Find("a[href], area[href]").Each(func(_ int, s *goquery.Selection) {
		if hasRelNoFollow(s.AttrOr("rel", "")) {
			return
		}
		h := cleanHref(s.AttrOr("href", ""))
		if !followable(h) {
			return
		}
		if u, reason := resolve(base, h); reason == "" && u != "" && !seen[u] {
			seen[u] = true
			p.Links = append(p.Links, u)
		}
	})
	return p, nil
}

// TestTokenizerMatchesTree compares the tokenizer pass with the tree
// parser on ordinary and messy documents.
func TestTokenizerMatchesTree(t *testing.T) {
	docs := []string{
		`<!DOCTYPE html><html><head><title>A &amp; B</title><base href="/x/"><meta name="robots" content="noarchive"></head>
		 <body><a href="a">1</a><a href='b#f' rel="noopener">2</a><map><area href="/c"></map></body></html>`,
		`<title>x</title><title>second</title><a href=/a><a href=/b>`,
		`<p><a href="/1">unclosed <p><a href="/2"><b><a href="/3"></b></a>`,
		`<table><tr><td><a href="/in-table"></td><a href="/foster-parented"></table>`,
		`<a href="/dup" href="/second-attr-ignored">d</a><a HREF="/UPPER" REL="NOFOLLOW">u</a>`,
		`<script>document.write('<a href="/in-script">')</script><style>a{}</style><textarea><a href="/in-textarea"></textarea><a href="/after">`,
		`<noscript><a href="/noscript"></noscript><a href="/real">`,
		`<!-- <a href="/commented"> --><a href="/live"><![CDATA[ <a href="/cdata"> ]]>`,
		`<body><meta name="PoliteCrawl" content="noindex"><base href="http://other/"><a href="rel">`,
		`<template><a href="/in-template"></template><iframe><a href="/in-iframe"></iframe>`,
		`<meta name="robots" content="nofollow"><a href="/not-followed">`,
		`<a href="javascript:x()">j</a><a href=" mailto:me@h">m</a><a href="HTTP://H/Up">u</a><a href="//proto/rel">p</a>`,
		"<title>\n  spaced \t title </title><a href=\"\\\\back\\slash\"><a href=\"  /x\ty\n \">",
		`<a href="/a%zz">bad escape</a><a href="">empty</a><a href="#frag">frag</a><a href="?q">query</a>`,
	}
	for i, d := range docs {
		u := mustURL(t, "http://h/dir/page.html")
		h := http.Header{"X-Robots-Tag": {"politecrawl: nosnippet"}}
		want, err := treeHTML([]byte(d), u, h, "politecrawl")
		if err != nil {
			t.Fatalf("doc %d: tree parser: %v", i, err)
		}
		got, err := HTML([]byte(d), u, h, "politecrawl")
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		got.Skipped = nil
		// The tree builder moves some elements (foster parenting out of
		// tables); the tokenizer keeps source order. Compare sets.
		slices.Sort(got.Links)
		slices.Sort(want.Links)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("doc %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
}
