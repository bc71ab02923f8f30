package extract

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// TDMRep's meta tags and the noai directives reach the Page from both
// parsers: the first tdm-reservation and tdm-policy count, noai and
// noimageai are kept among the other directives.
func TestTDMAndNoAI(t *testing.T) {
	body := []byte(`<html><head>
<meta name="TDM-Reservation" content=" 1 ">
<meta name="tdm-policy" content="https://provider.example/policies/1">
<meta name="robots" content="noai, noimageai">
</head><body><meta name="tdm-reservation" content="0"></body></html>`)
	u, _ := url.Parse("http://a.test/p")
	h := http.Header{"X-Robots-Tag": {"otherbot: noai", "noindex"}}
	for _, how := range []parser{treeOnly, streamOnly} {
		p, _, err := parse(body, u, h, Options{Agent: "politecrawl"}, how)
		if err != nil {
			t.Fatal(err)
		}
		if want := (TDM{Reservation: "1", Policy: "https://provider.example/policies/1"}); p.TDM != want {
			t.Errorf("parser %d: TDM = %+v, want %+v", how, p.TDM, want)
		}
		if !slices.Equal(p.Directives.Other, []string{"noai", "noimageai"}) || !p.Directives.NoIndex {
			t.Errorf("parser %d: directives %+v, want noindex plus noai and noimageai (not otherbot's)", how, p.Directives)
		}
	}
}
