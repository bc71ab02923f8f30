package extract

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// linkPage builds a page of n links of about 20 bytes each, padded with
// text to roughly size bytes when size is larger.
func linkPage(n, size int) []byte {
	var sb strings.Builder
	sb.WriteString("<html><head><title>Bench</title><meta name=robots content='index,follow'></head><body>")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `<p><a href="/p/%d">link %d</a></p>`, i, i)
	}
	if pad := size - sb.Len(); pad > 0 {
		sb.WriteString("<p>")
		sb.WriteString(strings.Repeat("filler text ", pad/12))
		sb.WriteString("</p>")
	}
	sb.WriteString("</body></html>")
	return []byte(sb.String())
}

// benchPage extracts body with the default link cap, as a crawler does.
func benchPage(b *testing.B, body []byte) {
	u := mustURL(b, "http://h/a/")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body, u, nil, Options{Agent: "politecrawl"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPage10KB: a typical page, 10 KB with 200 links.
func BenchmarkPage10KB(b *testing.B) { benchPage(b, linkPage(200, 10<<10)) }

// BenchmarkPage1MB: a large page, 1 MB of which 2,000 links.
func BenchmarkPage1MB(b *testing.B) { benchPage(b, linkPage(2000, 1<<20)) }

// BenchmarkPage528kLinks: a hostile 10 MiB page of 528,000 links (issue 8),
// with the default cap of 10,000 links, and with none (HTML).
func BenchmarkPage528kLinks(b *testing.B) {
	body := linkPage(528000, 0)
	b.Run("cap=10000", func(b *testing.B) { benchPage(b, body) })
	b.Run("nocap", func(b *testing.B) {
		u := mustURL(b, "http://h/a/")
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if p, err := HTML(body, u, nil, "politecrawl"); err != nil || len(p.Links) != 528000 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPageDeep: 100,000 nested elements around a title and links.
func BenchmarkPageDeep(b *testing.B) {
	body := []byte(strings.Repeat("<div>", 100000) + `<title>t</title><a href="/x">x</a>`)
	benchPage(b, body)
}

// BenchmarkParsers: the typical 10 KB page of 200 links read by each
// parser: goquery's tree (what Parse uses for it) and the tokenizer stream
// (its fallback for deep and big pages).
func BenchmarkParsers(b *testing.B) {
	body := linkPage(200, 10<<10)
	u := mustURL(b, "http://h/a/")
	for _, c := range []struct {
		name string
		how  parser
	}{{"tree", treeOnly}, {"stream", streamOnly}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if p, _, err := parse(body, u, nil, Options{Agent: "politecrawl"}, c.how); err != nil || len(p.Links) != 200 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPageSmall: a small page of three links, as crawltest's trees
// serve (the web BenchmarkCrawl and `make compare` crawl), with the
// headers a server gives it: the per-page costs of a parse, whatever the
// size of the page.
func BenchmarkPageSmall(b *testing.B) {
	body := []byte(`<html><head><title>h1 page 7</title></head><body><a href="/p/15">child 15</a> ` +
		`<a href="/p/16">child 16</a> <a href="http://127.0.0.1:40001/">h2</a> </body></html>`)
	header := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	u := mustURL(b, "http://127.0.0.1:40000/p/7")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if p, err := Parse(body, u, header, Options{Agent: "politecrawl"}); err != nil || len(p.Links) != 3 {
			b.Fatal(p, err)
		}
	}
}
