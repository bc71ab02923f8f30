package robots

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// group is one run of user-agent lines and the records that follow it.
// Its rules are compiled once, in both percent-encoding readings.
type group struct {
	global bool
	lit    []*rule // Google's reading: pattern escaped only
	canon  []*rule // RFC 9309 canonical reading
	differ bool    // some pattern reads differently in the two readings
	delays []time.Duration
	rates  []Rate
}

// agentEntry is everything that applies to one agent: the groups that name
// it, merged on first use. Building lazily keeps Parse bounded on files that
// name thousands of agents; only agents that are asked about cost memory.
type agentEntry struct {
	groups []*group
	mu     sync.Mutex
	rules  atomic.Pointer[agentRules]
}

// agentRules is the merged, compiled view of an agent's groups.
type agentRules struct {
	lit, canon *ruleSet // canon is nil when it would equal lit
	delay      time.Duration
	hasDelay   bool
	rates      []Rate
}

func (e *agentEntry) get() *agentRules {
	if r := e.rules.Load(); r != nil {
		return r
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.rules.Load(); r != nil {
		return r
	}
	r := merge(e.groups)
	e.rules.Store(r)
	return r
}

func merge(groups []*group) *agentRules {
	a := &agentRules{}
	var lit, canon []*rule
	differ := false
	for _, g := range groups {
		lit = append(lit, g.lit...)
		canon = append(canon, g.canon...)
		differ = differ || g.differ
		for _, d := range g.delays {
			if !a.hasDelay || d > a.delay {
				a.delay, a.hasDelay = d, true
			}
		}
		a.rates = append(a.rates, g.rates...)
	}
	a.lit = newRuleSet(lit)
	if differ {
		a.canon = newRuleSet(canon)
	}
	return a
}

// parser holds the state of one Parse. It mirrors Google's: a user-agent
// line starts a new group only once the current group has had a rule.
type parser struct {
	groups   []*group
	cur      *group
	inRules  bool
	agents   map[string][]*group
	global   []*group
	sitemaps []string
	seenMap  map[string]bool
}

// Parse reads a robots.txt body. It never fails and never panics: lines it
// cannot use are skipped. Only the first MaxSize bytes are read.
func Parse(body []byte) *Robots {
	p := &parser{agents: map[string][]*group{}, seenMap: map[string]bool{}}
	scanLines(skipBOM(limit(body)), p.line)
	return p.finish()
}

func (p *parser) line(num int, line []byte) {
	key, value, ok := splitLine(line)
	if !ok {
		return
	}
	switch parseField(key) {
	case fieldUserAgent:
		p.userAgent(value)
	case fieldAllow:
		p.rule(true, string(value), num)
	case fieldDisallow:
		p.rule(false, string(value), num)
	case fieldSitemap:
		p.sitemap(string(value))
	case fieldCrawlDelay:
		if d, ok := parseCrawlDelay(string(value)); ok && p.cur != nil {
			p.cur.delays = append(p.cur.delays, d)
		}
	case fieldRequestRate:
		if r, ok := parseRequestRate(string(value)); ok && p.cur != nil {
			p.cur.rates = append(p.cur.rates, r)
		}
	}
}

func (p *parser) userAgent(value []byte) {
	if p.cur == nil || p.inRules {
		p.cur = &group{}
		p.groups = append(p.groups, p.cur)
		p.inRules = false
	}
	token, global := groupAgent(value)
	switch {
	case global:
		if !p.cur.global {
			p.cur.global = true
			p.global = append(p.global, p.cur)
		}
	case token != "":
		gs := p.agents[token]
		if len(gs) == 0 || gs[len(gs)-1] != p.cur {
			p.agents[token] = append(gs, p.cur)
		}
	}
}

// rule records an allow or disallow line. Rules before the first
// user-agent line are ignored. An empty value is no rule, but it still ends
// the run of user-agent lines.
func (p *parser) rule(allow bool, value string, num int) {
	if p.cur == nil {
		return
	}
	p.inRules = true
	if value == "" {
		return
	}
	lit := googleEscape(value)
	can := canonical(value, false)
	if !usable(lit) {
		return
	}
	n := len(p.cur.lit)
	p.cur.lit = appendRule(p.cur.lit, lit, allow, num)
	if lit == can {
		// The usual case: both readings share the compiled rules.
		p.cur.canon = append(p.cur.canon, p.cur.lit[n:]...)
		return
	}
	p.cur.differ = true
	p.cur.canon = appendRule(p.cur.canon, can, allow, num)
}

// usable reports whether a pattern can ever match: paths start with '/', so
// a pattern must start with '/' or '*'.
func usable(pattern string) bool {
	return pattern[0] == '/' || pattern[0] == '*'
}

// appendRule adds the compiled rule, and for an allow rule whose last path
// segment starts with "index.htm", Google's extra rule that allows the
// directory URL itself ("/a/index.html" also allows "/a/").
func appendRule(rules []*rule, pattern string, allow bool, num int) []*rule {
	rules = append(rules, compileRule(pattern, allow, num))
	if allow {
		if i := strings.LastIndexByte(pattern, '/'); i >= 0 && strings.HasPrefix(pattern[i:], "/index.htm") {
			rules = append(rules, compileRule(pattern[:i+1]+"$", true, num))
		}
	}
	return rules
}

func (p *parser) sitemap(v string) {
	if v == "" || p.seenMap[v] {
		return
	}
	p.seenMap[v] = true
	p.sitemaps = append(p.sitemaps, v)
}

func (p *parser) finish() *Robots {
	r := &Robots{agents: make(map[string]*agentEntry, len(p.agents)), sitemaps: p.sitemaps}
	// Agents named by exactly the same groups share one entry, so the merge
	// is built at most once for them.
	shared := map[*group]*agentEntry{}
	for token, gs := range p.agents {
		if len(gs) == 1 {
			e := shared[gs[0]]
			if e == nil {
				e = &agentEntry{groups: gs}
				shared[gs[0]] = e
			}
			r.agents[token] = e
			continue
		}
		r.agents[token] = &agentEntry{groups: gs}
	}
	if len(p.global) > 0 {
		r.global = &agentEntry{groups: p.global}
	}
	return r
}
