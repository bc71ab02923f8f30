package scope

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
)

// builder collects rules and their errors for Compile.
type builder struct {
	s     *Scope
	where func(string) string
	errs  []error

	incl, excl         []string
	inclRule, exclRule []int
	res                []*regexp.Regexp
	resRule            []int
}

// add appends a rule and returns its index.
func (b *builder) add(key, value string) (int, Rule) {
	r := Rule{Key: key, Value: value}
	if b.where != nil {
		r.Where = b.where(key)
	}
	b.s.rules = append(b.s.rules, r)
	return len(b.s.rules) - 1, r
}

func (b *builder) fail(r Rule, err error) { b.errs = append(b.errs, &RuleError{Rule: r, Err: err}) }

func (b *builder) host(key, h string) {
	i, r := b.add(key, h)
	n, err := urlnorm.Normalise("http://" + strings.TrimSpace(h) + "/")
	if err != nil || strings.ContainsAny(strings.TrimSpace(h), "/?#@") {
		b.fail(r, fmt.Errorf("not a host (give host or host:port): %v", err))
		return
	}
	a := urlnorm.Authority(n)
	if strings.HasSuffix(strings.TrimSpace(h), ":80") && !strings.Contains(a, ":") {
		a += ":80" // as scope.hosts always read it: port 80 of any scheme
	}
	if _, dup := b.s.hosts[a]; !dup {
		b.s.hosts[a] = i
	}
}

func (b *builder) domain(key, d string) {
	i, r := b.add(key, d)
	n, err := parseDomain(d)
	if err != nil {
		b.fail(r, err)
		return
	}
	if _, dup := b.s.domains[n]; !dup {
		b.s.domains[n] = i
	}
}

func (b *builder) prefix(key, raw string, exclude bool) {
	i, r := b.add(key, raw)
	p, err := parsePrefix(raw)
	switch {
	case err != nil:
		b.fail(r, err)
	case p.domain != "" && exclude:
		b.fail(r, fmt.Errorf("a domain SURT prefix cannot be excluded (give a URL prefix, or use scope.exclude_patterns)"))
	case p.domain != "":
		if _, dup := b.s.domains[p.domain]; !dup {
			b.s.domains[p.domain] = i
		}
	case exclude:
		b.excl, b.exclRule = append(b.excl, p.url), append(b.exclRule, i)
	default:
		b.incl, b.inclRule = append(b.incl, p.url), append(b.inclRule, i)
	}
}

// seedPrefixes adds each seed up to the last '/' of its path.
func (b *builder) seedPrefixes(seeds []string) {
	for j, seed := range seeds {
		n, err := urlnorm.Normalise(seed)
		key := fmt.Sprintf("scope.seed_prefix (seeds[%d])", j)
		if err != nil {
			_, r := b.add(key, seed)
			b.fail(r, fmt.Errorf("seed is not a URL: %w", err))
			continue
		}
		p := n
		if q := strings.IndexAny(p, "?#"); q >= 0 {
			p = p[:q]
		}
		p = p[:strings.LastIndexByte(p, '/')+1]
		i, _ := b.add(key, p)
		b.s.rules[i].Where = b.whereOf(fmt.Sprintf("seeds[%d]", j))
		b.incl, b.inclRule = append(b.incl, p), append(b.inclRule, i)
	}
}

// seedHosts is the default scope: the seeds' hosts.
func (b *builder) seedHosts(seeds []string) {
	for j, seed := range seeds {
		n, err := urlnorm.Normalise(seed)
		if err != nil {
			continue // the seeds' own check reports it
		}
		a := urlnorm.Authority(n)
		i, _ := b.add(fmt.Sprintf("seeds[%d] (its host: scope.hosts is empty)", j), a)
		b.s.rules[i].Where = b.whereOf(fmt.Sprintf("seeds[%d]", j))
		if _, dup := b.s.hosts[a]; !dup {
			b.s.hosts[a] = i
		}
	}
}

func (b *builder) whereOf(key string) string {
	if b.where == nil {
		return ""
	}
	return b.where(key)
}

func (b *builder) pattern(key, p string) {
	i, r := b.add(key, p)
	re, err := regexp.Compile(p)
	if err != nil {
		b.fail(r, fmt.Errorf("not a regular expression (RE2 syntax): %w", err))
		return
	}
	b.res, b.resRule = append(b.res, re), append(b.resRule, i)
}

func (b *builder) extension(key, e string) {
	i, r := b.add(key, e)
	x := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(e), "."))
	if x == "" || len(x) > maxExt || strings.ContainsAny(x, "./?#") {
		b.fail(r, fmt.Errorf("not a file extension (give e.g. zip or .zip, at most %d characters)", maxExt))
		return
	}
	if _, dup := b.s.exts[x]; !dup {
		b.s.exts[x] = i
	}
}

// finish builds the tables once every rule is known to be good.
func (b *builder) finish() {
	b.s.include = newPrefixTable(b.incl, b.inclRule)
	b.s.exclude = newPrefixTable(b.excl, b.exclRule)
	b.s.patterns = newPatternSet(b.res, b.resRule)
}
