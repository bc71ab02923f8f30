package extract

import (
	"fmt"
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

func benchPage(b *testing.B, body []byte) {
	u := mustURL(b, "http://h/a/")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML(body, u, nil, "politecrawl"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPage10KB: a typical page, 10 KB with 200 links.
func BenchmarkPage10KB(b *testing.B) { benchPage(b, linkPage(200, 10<<10)) }

// BenchmarkPage1MB: a large page, 1 MB of which 2,000 links.
func BenchmarkPage1MB(b *testing.B) { benchPage(b, linkPage(2000, 1<<20)) }

// BenchmarkPage528kLinks: a hostile 10 MiB page of 528,000 links (issue 8).
func BenchmarkPage528kLinks(b *testing.B) { benchPage(b, linkPage(528000, 0)) }

// BenchmarkPageDeep: 100,000 nested elements around a title and links.
func BenchmarkPageDeep(b *testing.B) {
	body := []byte(strings.Repeat("<div>", 100000) + `<title>t</title><a href="/x">x</a>`)
	benchPage(b, body)
}
