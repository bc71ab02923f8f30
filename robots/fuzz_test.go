package robots

import (
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"User-agent: *\nDisallow: /\n",
		"User-agent: FooBot\nAllow: /a*b$\nDisallow: /\nCrawl-delay: 0.5\nRequest-rate: 1/10s 0800-1700\n",
		"\xEF\xBB\xBFuser agent FooBot\rdisalow /x\r\nsitemap: http://e/s.xml",
		"User-agent: *\nAllow: /d/index.html\nDisallow: /%62%61%7A\nDisallow: /ツ\n",
		"User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a$\n",
		"User-agent: *\nContent-Usage: /a train-ai=n\nContent-Signal: search=yes, ai-train=no\n",
	} {
		f.Add([]byte(s), "FooBot", "/a/b?c")
	}
	f.Fuzz(func(t *testing.T, body []byte, agent, target string) {
		r := Parse(body)
		a1 := r.Allowed(agent, target)
		a2 := Parse(body).Allowed(agent, target)
		if a1 != a2 || r.Allowed(agent, target) != a1 {
			t.Fatalf("Allowed not deterministic for %q %q", agent, target)
		}
		for _, u := range r.UseRules(agent, target) {
			if u.Value == "" || u.Line < 1 || u.Pattern != "" && u.Pattern[0] != '/' {
				t.Fatalf("UseRules gave %+v", u)
			}
		}
		if d := r.Explain(agent, target); d.Allowed != a1 {
			t.Fatalf("Explain %v disagrees with Allowed %v", d.Allowed, a1)
		}
		for _, u := range []string{"/robots.txt", "http://example.com/robots.txt", "https://h:8443/robots.txt#x"} {
			if !r.Allowed(agent, u) {
				t.Fatalf("%s disallowed", u)
			}
		}
		if d, ok := r.CrawlDelay(agent); ok && (d < 0 || d > maxDelay) {
			t.Fatalf("crawl delay %v out of range", d)
		}
		if rt, ok := r.RequestRate(agent); ok && (rt.Requests <= 0 || rt.Per <= 0) {
			t.Fatalf("bad rate %+v", rt)
		}
		seen := map[string]bool{}
		for _, s := range r.Sitemaps() {
			if s == "" || seen[s] {
				t.Fatalf("sitemap %q empty or repeated", s)
			}
			seen[s] = true
		}
	})
}

// refMatch is Google's position-set matcher (robots.cc Matches), kept as
// the reference for the greedy matcher.
func refMatch(path, pattern string) bool {
	pos := []int{0}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '$' && i+1 == len(pattern) {
			return pos[len(pos)-1] == len(path)
		}
		if c == '*' {
			first := pos[0]
			pos = pos[:0]
			for p := first; p <= len(path); p++ {
				pos = append(pos, p)
			}
			continue
		}
		next := pos[:0]
		for _, p := range pos {
			if p < len(path) && path[p] == c {
				next = append(next, p+1)
			}
		}
		pos = next
		if len(pos) == 0 {
			return false
		}
	}
	return true
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"/a*b$", "/axxb"}, {"/*.php$", "/x.php"}, {"*", ""}, {"/a$b", "/a$b"}, {"/**a*$", "/ba"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 64 || len(path) > 256 {
			return
		}
		if got, want := compileRule(pattern, false, 1).match(path), refMatch(path, pattern); got != want {
			t.Fatalf("match(%q, %q) = %v, reference %v", pattern, path, got, want)
		}
	})
}

func TestMatchAgreesWithReference(t *testing.T) {
	alphabet := "/ab*$"
	// Every pattern and path up to length 5 over a small alphabet.
	var all func(n int) []string
	all = func(n int) []string {
		if n == 0 {
			return []string{""}
		}
		var out []string
		for _, s := range all(n - 1) {
			for i := 0; i < len(alphabet); i++ {
				out = append(out, s+alphabet[i:i+1])
			}
		}
		return out
	}
	var patterns, paths []string
	for n := 0; n <= 4; n++ {
		patterns = append(patterns, all(n)...)
		paths = append(paths, all(n)...)
	}
	for _, p := range patterns {
		r := compileRule(p, false, 1)
		for _, u := range paths {
			if got, want := r.match(u), refMatch(u, p); got != want {
				t.Fatalf("match(%q, %q) = %v, reference %v", p, u, got, want)
			}
		}
	}
}
