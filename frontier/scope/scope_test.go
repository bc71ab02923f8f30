package scope

import (
	"errors"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, c Config) *Scope {
	t.Helper()
	s, err := Compile(c)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return s
}

func TestDecide(t *testing.T) {
	docs := Config{
		Prefixes:        []string{"https://docs.python.org/3/howto/", "http://(org,python,docs,)/3/tutorial/"},
		Exclude:         []string{"https://docs.python.org/3/howto/_sources/"},
		ExcludePatterns: []string{`\.txt$`, `[?&]session=`},
		SkipExtensions:  []string{"zip", ".PNG"},
		Where:           func(key string) string { return "crawl.yaml:" + key },
	}
	tests := []struct {
		name string
		c    Config
		url  string
		in   bool
		key  string // the deciding rule's key; "" for none
	}{
		{"prefix", docs, "https://docs.python.org/3/howto/logging.html", true, "scope.prefixes[0]"},
		{"prefix is per scheme", docs, "http://docs.python.org/3/howto/logging.html", false, ""},
		{"surt prefix", docs, "http://docs.python.org/3/tutorial/index.html", true, "scope.prefixes[1]"},
		{"sibling section", docs, "https://docs.python.org/3/library/os.html", false, ""},
		{"prefix is not a path segment match", docs, "https://docs.python.org/3/howtoX", false, ""},
		{"exclude prefix", docs, "https://docs.python.org/3/howto/_sources/a.rst", false, "scope.exclude[0]"},
		{"exclude pattern", docs, "https://docs.python.org/3/howto/a.txt", false, "scope.exclude_patterns[0]"},
		{"second pattern", docs, "https://docs.python.org/3/howto/a?x=1&session=2", false, "scope.exclude_patterns[1]"},
		{"extension", docs, "https://docs.python.org/3/howto/pics/a.zip", false, "scope.skip_extensions[0]"},
		{"extension any case", docs, "https://docs.python.org/3/howto/pics/A.Png", false, "scope.skip_extensions[1]"},
		{"extension before the query only", docs, "https://docs.python.org/3/howto/a.html?f=b.zip", true, "scope.prefixes[0]"},
		{"domain", Config{Domains: []string{"Example.org"}}, "https://a.b.example.org:8443/x", true, "scope.domains[0]"},
		{"domain itself", Config{Domains: []string{"example.org"}}, "http://example.org/", true, "scope.domains[0]"},
		{"domain is not a suffix", Config{Domains: []string{"example.org"}}, "http://badexample.org/", false, ""},
		{"surt domain", Config{Prefixes: []string{"http://(org,example,"}}, "https://www.example.org/", true, "scope.prefixes[0]"},
		{"hosts exact", Config{Hosts: []string{"example.org"}}, "http://www.example.org/", false, ""},
		{"hosts any port", Config{Hosts: []string{"example.org"}}, "http://example.org:8080/", true, "scope.hosts[0]"},
		{"hosts with port", Config{Hosts: []string{"example.org:8080"}}, "http://example.org/", false, ""},
		{"union of hosts and prefixes", Config{Hosts: []string{"a.org"}, Prefixes: []string{"https://b.org/x/"}}, "http://a.org/y", true, "scope.hosts[0]"},
		{"seed hosts by default", Config{Seeds: []string{"https://a.org/docs/index.html"}}, "https://a.org/other", true, "seeds[0] (its host: scope.hosts is empty)"},
		{"seed hosts not with an include rule", Config{Seeds: []string{"https://a.org/"}, Domains: []string{"b.org"}}, "https://a.org/", false, ""},
		{"seed prefix", Config{Seeds: []string{"https://a.org/docs/index.html"}, SeedPrefix: true}, "https://a.org/docs/x/y", true, "scope.seed_prefix (seeds[0])"},
		{"seed prefix, outside", Config{Seeds: []string{"https://a.org/docs/index.html"}, SeedPrefix: true}, "https://a.org/other", false, ""},
		{"nested prefixes: the longest", Config{Prefixes: []string{"https://a.org/", "https://a.org/b/"}}, "https://a.org/b/c", true, "scope.prefixes[1]"},
		{"nested prefixes: the shorter", Config{Prefixes: []string{"https://a.org/", "https://a.org/b/", "https://a.org/bz"}}, "https://a.org/bb", true, "scope.prefixes[0]"},
		{"whole-host prefix", Config{Prefixes: []string{"https://a.org"}}, "https://a.org/any", true, "scope.prefixes[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustCompile(t, tt.c).Decide(tt.url)
			if d.In != tt.in || d.Rule.Key != tt.key {
				t.Errorf("Decide(%q) = in %v by %q (%s), want in %v by %q", tt.url, d.In, d.Rule.Key, d, tt.in, tt.key)
			}
		})
	}
}

func TestDecisionNamesTheRuleAndWhere(t *testing.T) {
	s := mustCompile(t, Config{Prefixes: []string{"https://a.org/x/"}, ExcludePatterns: []string{`\.txt$`},
		Where: func(key string) string { return map[string]string{"scope.exclude_patterns[0]": "crawl.yaml:9"}[key] }})
	got := s.Decide("https://a.org/x/a.txt").Reason()
	want := `scope: out of scope: excluded by scope.exclude_patterns[0] "\\.txt$" (crawl.yaml:9)`
	if got != want {
		t.Errorf("Reason = %s, want %s", got, want)
	}
}

func TestCompileRefusesBadRules(t *testing.T) {
	tests := []struct {
		c    Config
		want string // in the error: the key and the rule
	}{
		{Config{ExcludePatterns: []string{"ok", "(unclosed"}}, `scope.exclude_patterns[1] "(unclosed"`},
		{Config{Prefixes: []string{"docs.example.org/guide/"}}, `scope.prefixes[0] "docs.example.org/guide/": not a URL prefix`},
		{Config{Prefixes: []string{"ftp://example.org/"}}, `scope.prefixes[0] "ftp://example.org/"`},
		{Config{Exclude: []string{"(org,example,"}}, `scope.exclude[0]`},
		{Config{Prefixes: []string{"http://(org,exam"}}, `scope.prefixes[0] "http://(org,exam": not a SURT prefix`},
		{Config{Domains: []string{"example.org/x"}}, `scope.domains[0] "example.org/x": not a domain`},
		{Config{SkipExtensions: []string{"tar.gz"}}, `scope.skip_extensions[0] "tar.gz": not a file extension`},
		{Config{Hosts: []string{"http://a.org/"}}, `scope.hosts[0] "http://a.org/": not a host`},
	}
	for i, tt := range tests {
		_, err := Compile(tt.c)
		var re *RuleError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &re) {
			t.Errorf("step %d: Compile error = %v, want one containing %s", i, err, tt.want)
		}
	}
}

func TestReaches(t *testing.T) {
	s := mustCompile(t, Config{Hosts: []string{"a.org:8080"}, Domains: []string{"b.org"}, Prefixes: []string{"https://docs.c.org/x/"}})
	for h, want := range map[string]bool{"a.org": true, "b.org": true, "www.b.org": true, "c.org": true,
		"docs.c.org": true, "d.org": false, "org": true, "www.a.org": false} {
		if got := s.Reaches(h); got != want {
			t.Errorf("Reaches(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestPrefixTableAgainstALoop(t *testing.T) {
	prefixes := []string{"a", "ab", "abc", "abd", "b", "ba", "bab", "c/", "c/d", "c/d/e", "c/x"}
	rules := make([]int, len(prefixes))
	for i := range rules {
		rules[i] = i
	}
	tab := newPrefixTable(prefixes, rules)
	for _, s := range []string{"", "a", "aa", "abc", "abcd", "abd", "abe", "b", "bb", "baba", "c", "c/", "c/d/f", "c/d/e/f", "c/y", "d"} {
		want, best := -1, -1
		for i, p := range prefixes {
			if strings.HasPrefix(s, p) && len(p) > best {
				want, best = i, len(p)
			}
		}
		if got := tab.match(s); got != want {
			t.Errorf("match(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestHostsKeepTheirMeaning: scope.hosts entries are exact; one without a
// port admits every port (as before the crawl policy).
func TestHostsKeepTheirMeaning(t *testing.T) {
	s := mustCompile(t, Config{Hosts: []string{"Example.com", "127.0.0.1:8080"}})
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"http://example.com/a", true},
		{"https://example.com:8443/a", true},
		{"http://www.example.com/", false},
		{"http://127.0.0.1:8080/x", true},
		{"http://127.0.0.1:8081/x", false},
		{"http://127.0.0.1/x", false},
	} {
		if got := s.Contains(c.url); got != c.want {
			t.Errorf("Contains(%q) = %v, want %v", c.url, got, c.want)
		}
	}
}
