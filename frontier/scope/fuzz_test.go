package scope

import (
	"strings"
	"testing"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
)

// FuzzScope compiles a rule of every kind from the input and decides URLs
// with it: no panic, and the answer agrees with the rules read one by one.
func FuzzScope(f *testing.F) {
	f.Add("https://a.org/x/", "a.org", `\.txt$`, "https://a.org/x/y.txt")
	f.Add("http://(org,a,)/x/", "b.org", `(?i)SESSION`, "http://a.org/x/?session=1")
	f.Add("http://(org,a,", "", "", "https://www.a.org/")
	f.Fuzz(func(t *testing.T, prefix, domain, pattern, raw string) {
		s, err := Compile(Config{Prefixes: []string{prefix}, Domains: []string{domain}, ExcludePatterns: []string{pattern},
			SkipExtensions: []string{"zip"}})
		if err != nil {
			return
		}
		u, err := urlnorm.Normalise(raw)
		if err != nil {
			u = raw // Decide must not panic on any text either
		}
		d := s.Decide(u)
		if d.In != s.Decide(u).In {
			t.Fatalf("Decide(%q) is not stable", u)
		}
		if d.In && d.Excluded {
			t.Fatalf("Decide(%q) = in and excluded", u)
		}
		if d.In && !strings.HasPrefix(d.Rule.Key, "scope.prefixes") && !strings.HasPrefix(d.Rule.Key, "scope.domains") {
			t.Fatalf("Decide(%q) = in by %s, not an include rule", u, d.Rule.Key)
		}
	})
}
