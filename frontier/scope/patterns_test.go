package scope

import (
	"regexp"
	"testing"
)

// TestPatternSetAgainstALoop checks the prefiltered set against running
// every pattern: the same first match for each URL.
func TestPatternSetAgainstALoop(t *testing.T) {
	exprs := []string{`\.txt$`, `(?i)SESSION=`, `/(search|cart)(/|$)`, `[?&]utm_[a-z]+=`, `^https://[^/]+/\d+$`,
		`a+b`, `(?i)k`, `x{2,3}y`, `(foo|)bar`, `\.(jpe?g|png|gif)$`}
	var res []*regexp.Regexp
	var rules []int
	for i, e := range exprs {
		res, rules = append(res, regexp.MustCompile(e)), append(rules, i)
	}
	ps := newPatternSet(res, rules)
	urls := []string{"https://a.org/x.txt", "https://a.org/?SeSsIoN=1", "https://a.org/cart", "https://a.org/cartx",
		"https://a.org/?utm_source=x", "https://a.org/123", "https://a.org/aab", "https://a.org/\u212a", "https://a.org/xxy",
		"https://a.org/bar", "https://a.org/p.JPG", "https://a.org/p.jpeg", "https://a.org/", "https://a.org/K"}
	for _, u := range urls {
		want := -1
		for i, re := range res {
			if re.MatchString(u) {
				want = i
				break
			}
		}
		if got := ps.match(u); got != want {
			t.Errorf("match(%q) = %d, want %d", u, got, want)
		}
	}
}

// FuzzPatternSet: the prefilter never hides a match.
func FuzzPatternSet(f *testing.F) {
	f.Add(`(?i)session=[0-9a-f]+`, "https://a.org/?SESSION=ab")
	f.Add(`/(search|cart)/`, "https://a.org/cart/")
	f.Add(`[?&]x{2,}`, "https://a.org/?xx")
	f.Fuzz(func(t *testing.T, expr, u string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		ps := newPatternSet([]*regexp.Regexp{re}, []int{0})
		if got, want := ps.match(u) == 0, re.MatchString(u); got != want {
			t.Fatalf("pattern %q on %q: set says %v, regexp says %v", expr, u, got, want)
		}
	})
}
