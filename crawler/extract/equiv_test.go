package extract

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTreeMatchesStream: goquery's tree and the tokenizer stream, Parse's
// fallback, find the same page on ordinary and messy documents, so which
// one reads a page changes nothing a user sees but (for foster-parented
// table content) link order.
func TestTreeMatchesStream(t *testing.T) {
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
		`<a href="/` + strings.Repeat("x", MaxURLLength) + `">long</a><a href="http://h:port/">bad port</a><a href="/ok">`,
		`<svg><title>svg title</title><a href="/in-svg"></a></svg><title>html title</title>`,
	}
	for i, d := range docs {
		for _, max := range []int{-1, 2} {
			u := mustURL(t, "http://h/dir/page.html")
			h := http.Header{"X-Robots-Tag": {"politecrawl: nosnippet"}}
			opts := Options{Agent: "politecrawl", MaxLinks: max}
			tree, used, err := parse([]byte(d), u, h, opts, auto)
			if err != nil || used != treeOnly {
				t.Fatalf("doc %d: Parse used parser %d (want the tree), err %v", i, used, err)
			}
			stream, _, err := parse([]byte(d), u, h, opts, streamOnly)
			if err != nil {
				t.Fatalf("doc %d: stream: %v", i, err)
			}
			// The tree builder moves some elements (foster parenting out
			// of tables); the stream keeps source order. Compare sets when
			// every link is kept.
			if max < 0 {
				slices.Sort(tree.Links)
				slices.Sort(stream.Links)
			} else if len(tree.Links) != len(stream.Links) || tree.LinksDropped != stream.LinksDropped {
				t.Errorf("doc %d, cap %d: tree %d links %d dropped, stream %d links %d dropped", i, max,
					len(tree.Links), tree.LinksDropped, len(stream.Links), stream.LinksDropped)
				continue
			} else {
				tree.Links, stream.Links = nil, nil
			}
			if !reflect.DeepEqual(tree, stream) {
				t.Errorf("doc %d, cap %d:\ntree   %+v\nstream %+v", i, max, tree, stream)
			}
		}
	}
}

// TestParserChoice: ordinary pages are read with goquery; pages the tree
// parser refuses (deeper than 512) and pages over treeMaxBytes are read as
// a stream, and still give their title and links.
func TestParserChoice(t *testing.T) {
	page := `<title>T</title><meta name="robots" content="noarchive"><a href="/a">a</a><a href="/b" rel="ugc">b</a>`
	big := page + "<p>" + strings.Repeat("filler text ", treeMaxBytes/12+1) + `</p><a href="/last">`
	deep := strings.Repeat("<div>", 600) + page
	cases := []struct {
		name, body string
		want       parser
		links      []string
	}{
		{"ordinary", page, treeOnly, []string{"http://h/a"}},
		{"just under the size bound", page + strings.Repeat(" ", treeMaxBytes-len(page)), treeOnly, []string{"http://h/a"}},
		{"over the size bound", big, streamOnly, []string{"http://h/a", "http://h/last"}},
		{"deeper than 512", deep, streamOnly, []string{"http://h/a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, used, err := parse([]byte(c.body), mustURL(t, "http://h/"), nil, Options{}, auto)
			if err != nil {
				t.Fatal(err)
			}
			if used != c.want {
				t.Errorf("parser %d, want %d", used, c.want)
			}
			if p.Title != "T" || !p.Directives.NoArchive || !slices.Equal(p.Links, c.links) {
				t.Errorf("got title %q, noarchive %v, links %v; want T, true, %v", p.Title, p.Directives.NoArchive, p.Links, c.links)
			}
		})
	}
	// The tree parser really does refuse the deep page: the fallback is
	// what keeps its links.
	if _, _, err := parse([]byte(deep), mustURL(t, "http://h/"), nil, Options{}, treeOnly); err == nil {
		t.Error("html.Parse accepted 600 nested elements; the fallback is untested")
	}
}

// FuzzTreeAndStream: any document, read either way, never panics and
// stays within the bounds. (The two may differ on malformed markup that
// the tree builder repairs, such as reparented elements or content the
// tokenizer reads as raw text in a context the tree does not, so only
// TestTreeMatchesStream's documents are compared.)
func FuzzTreeAndStream(f *testing.F) {
	f.Add([]byte(`<title>t</title><base href="/b/"><a href="x">1</a><meta name="robots" content="noindex">`))
	f.Add([]byte(`<table><a href=/f></table><svg><title>s</title></svg>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		h := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
		opts := Options{Agent: "politecrawl", MaxLinks: 50}
		stream, _, err := parse(body, mustURL(t, "http://h/a/"), h, opts, streamOnly)
		if err != nil {
			t.Fatal(err)
		}
		tree, _, err := parse(body, mustURL(t, "http://h/a/"), h, opts, treeOnly)
		if err != nil {
			return // refused: Parse falls back to the stream
		}
		for _, p := range []*Page{tree, stream} {
			if len(p.Links) > 50 || len(p.Skipped) > MaxSkipped || len(p.Title) > maxTitle {
				t.Fatalf("bounds: %d links, %d skipped, title %d bytes", len(p.Links), len(p.Skipped), len(p.Title))
			}
		}
	})
}
