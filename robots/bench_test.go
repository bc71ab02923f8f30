package robots

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchRobots builds a realistic large file: about 300 rules in several
// groups, with wildcards, anchors, queries and a Sitemap block, as a big
// e-commerce or news site publishes.
func benchRobots() []byte {
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"products", "search", "cart", "account", "api", "static", "news", "blog",
		"category", "tag", "user", "admin", "checkout", "help", "media", "feeds", "print", "share"}
	var b strings.Builder
	b.WriteString("# big site\nSitemap: https://example.com/sitemap.xml\n\n")
	for g, agents := range [][]string{{"*"}, {"Googlebot", "Bingbot"}, {"politecrawl"}, {"AhrefsBot"}, {"Slurp"}} {
		for _, a := range agents {
			fmt.Fprintf(&b, "User-agent: %s\n", a)
		}
		if g == 2 {
			b.WriteString("Crawl-delay: 1.5\n")
		}
		for i := 0; i < 60; i++ {
			w1, w2 := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
			verb := "Disallow"
			if rng.IntN(4) == 0 {
				verb = "Allow"
			}
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "%s: /%s/*?%s=\n", verb, w1, w2)
			case 1:
				fmt.Fprintf(&b, "%s: /*.%s$\n", verb, w2[:3])
			case 2:
				fmt.Fprintf(&b, "%s: /%s/%s/\n", verb, w1, w2)
			case 3:
				fmt.Fprintf(&b, "%s: /%s/*/%s\n", verb, w1, w2)
			case 4:
				fmt.Fprintf(&b, "%s: /%s%d\n", verb, w1, i)
			default:
				fmt.Fprintf(&b, "%s: /*%s*\n", verb, w2)
			}
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

func benchPaths() []string {
	rng := rand.New(rand.NewPCG(9, 9))
	words := []string{"products", "search", "cart", "about", "news", "blog", "category", "p", "item", "img"}
	paths := make([]string, 1000)
	for i := range paths {
		p := "/" + words[rng.IntN(len(words))] + "/" + words[rng.IntN(len(words))] + fmt.Sprintf("/%d", rng.IntN(100000))
		switch rng.IntN(4) {
		case 0:
			p += ".html"
		case 1:
			p += "?q=" + words[rng.IntN(len(words))] + "&page=2"
		case 2:
			p += "/%E3%83%84"
		}
		paths[i] = "https://example.com" + p
	}
	return paths
}

func BenchmarkAllowed(b *testing.B) {
	r := Parse(benchRobots())
	paths := benchPaths()
	for _, agent := range []string{"politecrawl", "Googlebot", "unknownbot"} {
		b.Run(agent, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r.Allowed(agent, paths[i%len(paths)])
				i++
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	body := benchRobots()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(body)
	}
}

// BenchmarkParseFirstDecision is what a crawler pays per robots.txt: Parse,
// then the first decision for its agent, which merges and compiles that
// agent's groups (Parse leaves them raw).
func BenchmarkParseFirstDecision(b *testing.B) {
	body := benchRobots()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(body).Allowed("politecrawl", "https://example.com/products/item/1")
	}
}

func TestAllowedDoesNotAllocate(t *testing.T) {
	r := Parse(benchRobots())
	paths := benchPaths()
	r.Allowed("politecrawl", paths[0]) // build the merged rules once
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		r.Allowed("politecrawl/1.0 (+https://example.org/bot)", paths[i%len(paths)])
		i++
	})
	if allocs != 0 {
		t.Errorf("Allowed allocates %.2f times per decision on escaped ASCII URLs, want 0", allocs)
	}
}
