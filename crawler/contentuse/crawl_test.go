package contentuse

import (
	"net/http"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/extract"
	"github.com/politecrawl/politecrawl/crawler/fetch"
)

// TestResponseUse: what ResponseUse answers for a response, with and
// without signals, is what combining every statement it reads would
// answer (statements that say nothing, and a page without signals, read
// as every use unspecified and refuse nothing).
func TestResponseUse(t *testing.T) {
	signal := ParseContentSignal("search=yes, ai-train=no", "robots.txt line 2: Content-Signal")
	silent := Statement{Source: "robots.txt line 5: Content-Signal"}
	for _, tc := range []struct {
		name       string
		fromRobots []Statement
		header     http.Header
		page       *extract.Page
		use        string // a use to check, with want and source
		want       Value
		source     string
		refused    bool // for purpose ai-train
	}{
		{name: "nothing", page: &extract.Page{}, use: AITrain, want: Unspecified},
		{name: "no page", use: Search, want: Unspecified},
		{name: "silent robots.txt", fromRobots: []Statement{silent}, page: &extract.Page{}, use: AITrain, want: Unspecified},
		{name: "robots.txt", fromRobots: []Statement{silent, signal}, page: &extract.Page{},
			use: AITrain, want: No, source: "robots.txt line 2: Content-Signal", refused: true},
		{name: "header", header: http.Header{"Content-Usage": {"train-ai=n"}},
			use: AITrainGenAI, want: No, source: "header Content-Usage", refused: true},
		{name: "header yes", header: http.Header{"Content-Usage": {"search=y"}},
			use: Search, want: Yes, source: "header Content-Usage"},
		{name: "x-robots-tag", header: http.Header{"X-Robots-Tag": {"noai"}},
			use: AITrain, want: No, source: "header X-Robots-Tag", refused: true},
		{name: "tdm header", header: http.Header{"Tdm-Reservation": {"1"}},
			use: AIInput, want: No, source: "header tdm-reservation", refused: true},
		{name: "meta", page: &extract.Page{Directives: extract.Directives{Other: []string{"noai"}}},
			use: AITrain, want: No, source: "meta robots", refused: true},
		{name: "meta tdm", page: &extract.Page{TDM: extract.TDM{Reservation: "0"}},
			use: TDM, want: Yes, source: "meta tdm-reservation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &fetch.Response{Header: tc.header, ContentType: "text/html"}
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
			uses, refusal := ResponseUse(AITrain, "politecrawl", tc.fromRobots, resp, tc.page)
			if got := uses[tc.use]; got.Value != tc.want || got.Source != tc.source {
				t.Errorf("%s = %v (%q), want %v (%q)", tc.use, got.Value, got.Source, tc.want, tc.source)
			}
			if (refusal != nil) != tc.refused {
				t.Errorf("refusal = %v, want refused %v", refusal, tc.refused)
			}
			for _, k := range Known {
				if k != tc.use && tc.want == Unspecified && uses[k].Value != Unspecified {
					t.Errorf("%s = %v, want unspecified", k, uses[k].Value)
				}
			}
			if tc.want == Unspecified && (uses.String() != "" || StoredUse(uses) != nil) {
				t.Errorf("no signal: String %q, StoredUse %v, want none", uses.String(), StoredUse(uses))
			}
		})
	}
}

// BenchmarkResponseUseNoSignals is what most responses cost the worker: a
// page and a robots.txt that say nothing about content use.
func BenchmarkResponseUseNoSignals(b *testing.B) {
	resp := &fetch.Response{Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, ContentType: "text/html; charset=utf-8"}
	page := &extract.Page{Title: "t", Links: []string{"http://h/a"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, r := ResponseUse(AITrain, "politecrawl", nil, resp, page); r != nil {
			b.Fatal(r)
		}
	}
}
