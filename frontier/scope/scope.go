package scope

import (
	"errors"
	"fmt"
	"strings"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
)

// Config is the scope section of the config file, as typed values. Its
// zero value with seeds is "the seeds' hosts".
type Config struct {
	Hosts      []string // scope.hosts: host or host:port, exact
	Domains    []string // scope.domains: each with its subdomains
	Prefixes   []string // scope.prefixes: URL or SURT prefixes
	SeedPrefix bool     // scope.seed_prefix: everything under each seed's path
	Seeds      []string // seeds: for seed_prefix, and the default scope

	Exclude         []string // scope.exclude: URL or SURT prefixes
	ExcludePatterns []string // scope.exclude_patterns: RE2 over the normal URL
	SkipExtensions  []string // scope.skip_extensions: "zip" or ".zip"

	// Where, if set, says where a key ("scope.prefixes[2]", "seeds[0]")
	// is written: "crawl.yaml:14". It is shown with the rule.
	Where func(key string) string
}

// Rule is one rule of the config, as the user wrote it.
type Rule struct {
	Key   string // the config key: "scope.prefixes[2]", "scope.seed_prefix (seeds[0])"
	Value string // the rule as written (a seed_prefix rule: the prefix it gives)
	Where string // "file:line" of the key, or ""
}

// String is `key "value" (file:line)`.
func (r Rule) String() string {
	s := fmt.Sprintf("%s %q", r.Key, r.Value)
	if r.Where != "" {
		s += " (" + r.Where + ")"
	}
	return s
}

// Decision is what Decide made of a URL. The zero value is "out: no
// include rule matches".
type Decision struct {
	In bool
	// Rule decided: the include rule that matched (In), the exclude rule
	// that matched (!In, Excluded), or the zero Rule when no include rule
	// matched.
	Rule     Rule
	Excluded bool
}

// String says the decision in one line, naming the rule.
func (d Decision) String() string {
	switch {
	case d.In:
		return "in scope: included by " + d.Rule.String()
	case d.Excluded:
		return "out of scope: excluded by " + d.Rule.String()
	}
	return "out of scope: no include rule matches (scope.hosts, scope.domains, scope.prefixes, scope.seed_prefix)"
}

// Reason is the reason recorded for a URL the decision refuses: "scope: "
// and the decision.
func (d Decision) Reason() string { return "scope: " + d.String() }

// RuleError is a rule Compile refused.
type RuleError struct {
	Rule Rule
	Err  error
}

func (e *RuleError) Error() string { return fmt.Sprintf("%s: %v", e.Rule, e.Err) }
func (e *RuleError) Unwrap() error { return e.Err }

// Scope is a compiled set of rules. Immutable; safe for concurrent use.
// The zero Scope admits nothing.
type Scope struct {
	rules    []Rule
	hosts    map[string]int // authority, or bare host (any port) -> rule
	domains  map[string]int // domain -> rule
	include  prefixTable
	exclude  prefixTable
	exts     map[string]int // lower-case extension without the dot -> rule
	patterns patternSet
}

// Compile checks and compiles c's rules. Every bad rule is reported (see
// RuleError), joined in one error.
func Compile(c Config) (*Scope, error) {
	s := &Scope{hosts: map[string]int{}, domains: map[string]int{}, exts: map[string]int{}}
	b := builder{s: s, where: c.Where}
	for i, h := range c.Hosts {
		b.host(fmt.Sprintf("scope.hosts[%d]", i), h)
	}
	for i, d := range c.Domains {
		b.domain(fmt.Sprintf("scope.domains[%d]", i), d)
	}
	for i, p := range c.Prefixes {
		b.prefix(fmt.Sprintf("scope.prefixes[%d]", i), p, false)
	}
	if c.SeedPrefix {
		b.seedPrefixes(c.Seeds)
	}
	if len(s.rules) == 0 {
		b.seedHosts(c.Seeds)
	}
	for i, p := range c.Exclude {
		b.prefix(fmt.Sprintf("scope.exclude[%d]", i), p, true)
	}
	for i, p := range c.ExcludePatterns {
		b.pattern(fmt.Sprintf("scope.exclude_patterns[%d]", i), p)
	}
	for i, e := range c.SkipExtensions {
		b.extension(fmt.Sprintf("scope.skip_extensions[%d]", i), e)
	}
	if err := errors.Join(b.errs...); err != nil {
		return nil, err
	}
	b.finish()
	return s, nil
}

// Decide says whether the normal URL u is in scope, and which rule says
// so. It does not allocate, except for an exclude pattern that matches.
func (s *Scope) Decide(u string) Decision {
	if s == nil {
		return Decision{}
	}
	r := s.included(u)
	if r < 0 {
		return Decision{}
	}
	if x := s.excluded(u); x >= 0 {
		return Decision{Rule: s.rules[x], Excluded: true}
	}
	return Decision{In: true, Rule: s.rules[r]}
}

// Contains reports whether the normal URL u is in scope.
func (s *Scope) Contains(u string) bool { return s.Decide(u).In }

func (s *Scope) included(u string) int {
	auth := urlnorm.Authority(u)
	if r, ok := s.hosts[auth]; ok {
		return r
	}
	host := hostOf(auth)
	if r, ok := s.hosts[host]; ok {
		return r
	}
	if len(s.domains) > 0 {
		for d := host; d != ""; d = parentDomain(d) {
			if r, ok := s.domains[d]; ok {
				return r
			}
		}
	}
	return s.include.match(u)
}

func (s *Scope) excluded(u string) int {
	if r := s.exclude.match(u); r >= 0 {
		return r
	}
	if r := s.extension(u); r >= 0 {
		return r
	}
	return s.patterns.match(u)
}

// extension looks up the extension of u's last path segment.
func (s *Scope) extension(u string) int {
	if len(s.exts) == 0 {
		return -1
	}
	p := u
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	p = p[strings.LastIndexByte(p, '/')+1:]
	dot := strings.LastIndexByte(p, '.')
	if dot < 0 || len(p)-dot-1 > maxExt || dot == len(p)-1 {
		return -1
	}
	var buf [maxExt]byte
	n := copy(buf[:], p[dot+1:])
	for i := range n {
		if c := buf[i]; 'A' <= c && c <= 'Z' {
			buf[i] = c + 'a' - 'A'
		}
	}
	if r, ok := s.exts[string(buf[:n])]; ok {
		return r
	}
	return -1
}

// maxExt bounds the extensions skip_extensions may name.
const maxExt = 16

// hostOf strips the port from an authority.
func hostOf(auth string) string {
	if i := strings.LastIndexByte(auth, ':'); i >= 0 && !strings.HasSuffix(auth, "]") {
		return auth[:i]
	}
	return auth
}

// parentDomain drops the first label: a.b.c -> b.c -> c -> "".
func parentDomain(d string) string {
	if i := strings.IndexByte(d, '.'); i >= 0 {
		return d[i+1:]
	}
	return ""
}

// Empty reports whether s has no rule at all (no seeds either): it
// admits nothing.
func (s *Scope) Empty() bool { return s == nil || len(s.rules) == 0 }

// Rules lists the compiled rules in config order.
func (s *Scope) Rules() []Rule { return append([]Rule(nil), s.rules...) }

// Reaches reports whether some include rule may admit URLs on host or
// domain h (a per-host override for h has something to apply to): h is an
// included host or domain, lies under an included domain, or holds an
// included host or prefix.
func (s *Scope) Reaches(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	under := func(x string) bool { return x == h || strings.HasSuffix(x, "."+h) }
	for d := hostOf(h); d != ""; d = parentDomain(d) {
		if _, ok := s.domains[d]; ok {
			return true
		}
	}
	for k := range s.hosts {
		if under(k) || under(hostOf(k)) {
			return true
		}
	}
	for k := range s.domains {
		if under(k) {
			return true
		}
	}
	for _, k := range s.include.keys {
		if a := urlnorm.Authority(k); under(a) || under(hostOf(a)) {
			return true
		}
	}
	return false
}
