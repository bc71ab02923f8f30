package scope

import (
	"fmt"
	"testing"
)

// rules1000 is 1,000 rules: 450 URL prefixes over 150 hosts, 450 domains
// and 100 exclude patterns.
func rules1000() Config {
	var c Config
	for i := range 450 {
		c.Prefixes = append(c.Prefixes, fmt.Sprintf("https://docs%d.example.org/section%d/", i/3, i%3))
		c.Domains = append(c.Domains, fmt.Sprintf("site%d.example.net", i))
	}
	for i := range 100 {
		c.ExcludePatterns = append(c.ExcludePatterns, fmt.Sprintf(`/private%d/|[?&]token%d=`, i, i))
	}
	return c
}

// BenchmarkScope1000Rules decides URLs against 1,000 rules. Goal: at most
// 2 µs per URL; prefix and domain rules allocate nothing.
func BenchmarkScope1000Rules(b *testing.B) {
	urls := map[string][]string{
		"prefix": {"https://docs77.example.org/section1/page/index.html", "https://docs12.example.org/section2/a/b/c?q=1",
			"https://docs149.example.org/other/x.html"},
		"domain": {"https://www.site123.example.net/a/b", "http://site5.example.net/", "https://deep.a.b.c.site449.example.net/x"},
		"out":    {"https://elsewhere.example.com/a", "https://docs7.example.org/nope/"},
	}
	urls["mixed"] = append(append(append([]string{}, urls["prefix"]...), urls["domain"]...), urls["out"]...)
	run := func(name string, c Config) {
		s := mustCompile(b, c)
		for _, kind := range []string{"prefix", "domain", "out", "mixed"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				in := 0
				for i := 0; b.Loop(); i++ {
					if s.Decide(urls[kind][i%len(urls[kind])]).In {
						in++
					}
				}
			})
		}
	}
	c := rules1000()
	run("with-patterns", c)
	c.ExcludePatterns = nil
	run("prefixes+domains", c)
}
