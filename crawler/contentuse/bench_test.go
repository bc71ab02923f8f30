package contentuse

import "testing"

// BenchmarkResponse is the work a response with signals costs the worker:
// parse a robots.txt line, a header and a meta tag, combine, check.
func BenchmarkResponse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		u := Combine([]Statement{
			ParseContentSignal("search=yes, ai-train=no, ai-input=no", "robots.txt line 3: Content-Signal"),
			ParseContentUsage("train-ai=n, search=y, bots=y", "header Content-Usage"),
			ParseTDM("1", "https://p.example/", "meta tdm-reservation"),
			FromDirectives([]string{"noai"}, "meta robots"),
		})
		u.Refuses(AITrain, false)
	}
}
