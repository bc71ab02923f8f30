package contentuse

import "testing"

// The parsers never panic, answer the same twice, and state only y/n.

func FuzzParseContentUsage(f *testing.F) {
	for _, s := range []string{"train-ai=n", "train-ai=y, train-genai=n", `a=(1 "x");p=?1, b=:AA==:`, "Bots=n", "x=%\"%c3\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b := ParseContentUsage(s, "f"), ParseContentUsage(s, "f")
		if len(a.Prefs) != len(b.Prefs) {
			t.Fatalf("not deterministic on %q", s)
		}
		for k, v := range a.Prefs {
			if v != Yes && v != No || b.Prefs[k] != v {
				t.Fatalf("%q: %s=%v", s, k, v)
			}
		}
	})
}

func FuzzParseContentSignal(f *testing.F) {
	for _, s := range []string{"search=yes, ai-train=no", "ai-input=no,,=,x", " A = NO "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := ParseContentSignal(s, "f")
		for k, v := range a.Prefs {
			if v != Yes && v != No || k == "" {
				t.Fatalf("%q: %q=%v", s, k, v)
			}
		}
		Combine([]Statement{a})
	})
}

func FuzzParseTDMRep(f *testing.F) {
	f.Add([]byte(`[{"location":"/*","tdm-reservation":1,"tdm-policy":"https://p"}]`), "/a")
	f.Add([]byte(`[{"location":"/a*b*c*d*e*","tdm-reservation":0}]`), "/aaaaaaaaaaaaaaaaaaaaaa")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		rep, err := ParseTDMRep(body)
		if err != nil {
			return
		}
		s := rep.Statement(path)
		if v := s.Prefs[TDM]; len(s.Prefs) > 1 || len(s.Prefs) == 1 && v != Yes && v != No {
			t.Fatalf("Statement(%q) = %v", path, s.Prefs)
		}
	})
}
