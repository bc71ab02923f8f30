package contentuse

import (
	"maps"
	"testing"
)

type prefs = map[string]Value

func TestParseContentUsage(t *testing.T) {
	for i, tc := range []struct {
		expr string
		want prefs
	}{
		// draft-ietf-aipref-attach's examples.
		{"train-ai=n", prefs{AITrain: No}},
		{"train-ai=y", prefs{AITrain: Yes}},
		// draft-ietf-aipref-vocab 6: allow AI training, disallow generative.
		{"train-ai=y, train-genai=n", prefs{AITrain: Yes, AITrainGenAI: No}},
		// 6.5: the last value of a key wins, so this states nothing.
		{`train-ai=y, train-ai="n", train-genai=n, train-genai, all=n, all=()`, prefs{}},
		{`train-ai=y, train-ai="n", train-genai=n, train-genai, bots=n, bots=()`, prefs{}},
		// Parameters are ignored; one on a key with no preference states nothing.
		{`train-ai;has;parameters="?"`, prefs{}},
		{"search=y;x=1, bots=n", prefs{Search: Yes, Bots: No}},
		{"all=n", prefs{Bots: No}},
		{"ai-output=n", prefs{AIInput: No}},
		// Unknown labels are kept, never an error.
		{"foo-bar=n, search=y", prefs{"foo-bar": No, Search: Yes}},
		// Values other than the tokens y and n state nothing.
		{`search="y", train-ai=?1, bots=1, train-genai=yes`, prefs{}},
		{"search", prefs{}},
		// Whitespace the dictionary allows.
		{"  search=y ,\ttrain-ai=n", prefs{Search: Yes, AITrain: No}},
		{"", prefs{}},
		// Malformed: the whole dictionary fails, nothing is stated.
		{"Train-AI=n", prefs{}},
		{"train-ai=n,", prefs{}},
		{"train-ai=n search=y", prefs{}},
		{"train-ai==n", prefs{}},
		{`train-ai=n, search="unterminated`, prefs{}},
		{"train-ai=n; =x", prefs{}},
		{"train-ai=n, 9x=y", prefs{}},
		{"train-ai=(y n", prefs{}},
		{"train-ai=n, x=:AAA", prefs{}},
		{"train-ai=n, x=%\"%zz\"", prefs{}},
		// Valid but exotic items elsewhere do not spoil the rest.
		{`train-ai=n, x=(a "b" 1.5);p, y=:aGk=:, z=@1700000000, w=%"caf%c3%a9", v=-12.345`, prefs{AITrain: No}},
	} {
		got := ParseContentUsage(tc.expr, "test").Prefs
		if got == nil {
			got = prefs{}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("case %d: ParseContentUsage(%q) = %v, want %v", i, tc.expr, got, tc.want)
		}
	}
}

func TestParseContentSignal(t *testing.T) {
	for i, tc := range []struct {
		value string
		want  prefs
	}{
		// Cloudflare's examples.
		{"search=yes, ai-train=no", prefs{Search: Yes, AITrain: No}},
		{"search=yes,ai-train=no", prefs{Search: Yes, AITrain: No}},
		{"ai-train=no, search=yes, ai-input=no", prefs{Search: Yes, AITrain: No, AIInput: No}},
		{"ai-train=yes, search=yes, ai-input=yes", prefs{Search: Yes, AITrain: Yes, AIInput: Yes}},
		// Case and spaces are tolerated.
		{" Search = YES , AI-Train = No ", prefs{Search: Yes, AITrain: No}},
		// Malformed items are skipped, the rest counts.
		{"search, ai-train=no", prefs{AITrain: No}},
		{"search=maybe, ai-input=no", prefs{AIInput: No}},
		{"=no, ai train=no, ai-input=no", prefs{AIInput: No}},
		{"search=y", prefs{}}, // y/n are the IETF's values, not Cloudflare's
		// Unknown signals are kept.
		{"use=reference, future-use=no", prefs{"future-use": No}},
		{"", prefs{}},
	} {
		got := ParseContentSignal(tc.value, "test").Prefs
		if got == nil {
			got = prefs{}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("case %d: ParseContentSignal(%q) = %v, want %v", i, tc.value, got, tc.want)
		}
	}
}

func TestParseTDM(t *testing.T) {
	for i, tc := range []struct {
		res, policy string
		want        prefs
		source      string
	}{
		{"1", "https://provider.example/policies/1", prefs{TDM: No}, "h (tdm-policy https://provider.example/policies/1)"},
		{"0", "", prefs{TDM: Yes}, "h"},
		{" 1 ", "", prefs{TDM: No}, "h"},
		{"2", "", prefs{}, "h"},
		{"yes", "", prefs{}, "h"},
		{"", "https://p", prefs{}, "h"},
	} {
		s := ParseTDM(tc.res, tc.policy, "h")
		got := s.Prefs
		if got == nil {
			got = prefs{}
		}
		if !maps.Equal(got, tc.want) || s.Source != tc.source {
			t.Errorf("case %d: ParseTDM(%q, %q) = %v %q, want %v %q", i, tc.res, tc.policy, got, s.Source, tc.want, tc.source)
		}
	}
}

func TestFromDirectives(t *testing.T) {
	got := FromDirectives([]string{"noai", "max-snippet:5", "noimageai"}, "meta robots").Prefs
	if want := (prefs{AITrain: No, AITrainImages: No}); !maps.Equal(got, want) {
		t.Errorf("FromDirectives = %v, want %v", got, want)
	}
	if s := FromDirectives([]string{"noindex", "NOAI"}, "x"); !s.Empty() {
		t.Errorf("FromDirectives(noindex, NOAI) = %v, want nothing (the extractor lower-cases)", s.Prefs)
	}
}

func TestParseTDMRep(t *testing.T) {
	// The TDMRep specification's example shape, plus broken rules.
	body := `[
	  {"location": "/", "tdm-reservation": 0},
	  {"location": "/*", "tdm-reservation": 1, "tdm-policy": "https://provider.example/policies/policy.json"},
	  {"location": "/research/*", "tdm-reservation": 0},
	  {"location": "/*.pdf", "tdm-reservation": "1"},
	  {"location": "no-slash", "tdm-reservation": 0},
	  {"tdm-reservation": 0},
	  {"location": "/bad/*", "tdm-reservation": 2}
	]`
	rep, err := ParseTDMRep([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		want   Value
		source string
	}{
		{"/", No, "tdmrep.json rule 2 (/*) (tdm-policy https://provider.example/policies/policy.json)"}, // the longer location, as in robots.txt
		{"/?q", No, "tdmrep.json rule 2 (/*) (tdm-policy https://provider.example/policies/policy.json)"},
		{"/a", No, "tdmrep.json rule 2 (/*) (tdm-policy https://provider.example/policies/policy.json)"},
		{"/research/x", Yes, "tdmrep.json rule 3 (/research/*)"},
		{"/research/x.pdf", Yes, "tdmrep.json rule 3 (/research/*)"}, // longer location wins
		{"/doc.pdf", No, "tdmrep.json rule 4 (/*.pdf)"},
		{"/bad/x", No, "tdmrep.json rule 2 (/*) (tdm-policy https://provider.example/policies/policy.json)"},
	} {
		s := rep.Statement(tc.path)
		if s.Prefs[TDM] != tc.want || s.Source != tc.source {
			t.Errorf("Statement(%q) = %v %q, want %v %q", tc.path, s.Prefs[TDM], s.Source, tc.want, tc.source)
		}
	}
	for _, bad := range []string{``, `{}`, `[`, `{"location": "/"}`, `"x"`, string(make([]byte, MaxTDMRepSize+1))} {
		if _, err := ParseTDMRep([]byte(bad)); err == nil {
			t.Errorf("ParseTDMRep(%.20q) = nil error, want one", bad)
		}
	}
	var none *TDMRep
	if s := none.Statement("/"); !s.Empty() {
		t.Errorf("nil TDMRep states %v", s.Prefs)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"/", "/", true}, {"/", "/a", false}, {"/*", "/a/b", true}, {"/a*c", "/abbc", true},
		{"/a*c", "/abcd", false}, {"/*.pdf", "/x.pdf", true}, {"/*.pdf", "/x.pdf?q", false},
		{"/**", "/", true}, {"/a*b*c", "/aXbYbZc", true},
	} {
		if got := globMatch(tc.p, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
}
