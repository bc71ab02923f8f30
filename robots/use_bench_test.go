package robots

import "testing"

// BenchmarkUseRules is what admission pays per link with a declared
// purpose: the content-use lines for the URL. "none" is the common file
// without such lines (it must stay allocation-free); "lines" adds
// Cloudflare's line and path-scoped Content-Usage lines to the big file.
func BenchmarkUseRules(b *testing.B) {
	plain := benchRobots()
	with := append([]byte("User-agent: politecrawl\nContent-Signal: search=yes, ai-train=no\n"+
		"Content-Usage: /news/ train-ai=n\nContent-Usage: /blog/*.html train-genai=n\nContent-Usage: bots=y\n\n"), plain...)
	paths := benchPaths()
	for _, tc := range []struct {
		name string
		body []byte
	}{{"none", plain}, {"lines", with}} {
		r := Parse(tc.body)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r.UseRules("politecrawl", paths[i%len(paths)])
				i++
			}
		})
	}
}

func TestUseRulesWithoutLinesDoNotAllocate(t *testing.T) {
	r := Parse(benchRobots())
	paths := benchPaths()
	r.UseRules("politecrawl", paths[0])
	if n := testing.AllocsPerRun(100, func() { r.UseRules("politecrawl", paths[3]) }); n != 0 {
		t.Errorf("UseRules on a file without content-use lines: %v allocations, want 0", n)
	}
}
