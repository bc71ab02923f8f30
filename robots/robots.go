package robots

import (
	"strings"
	"time"
)

// Robots is a parsed robots.txt file. The zero value, like an empty file,
// allows everything. It is immutable after Parse and safe for concurrent use.
type Robots struct {
	text     string                 // the values of records, agent tokens and sitemaps
	recs     []record               // every group's records, in file order
	groups   []group                // in file order
	agents   []agentName            // by lower-case product token, when few
	index    map[string]*agentEntry // by lower-case product token, when many
	global   *agentEntry            // the merged "*" groups; nil if none
	sitemaps []string
}

// Scope says which group a decision was made from.
type Scope int

const (
	// ScopeNone: no group applies to the agent, so everything is allowed.
	ScopeNone Scope = iota
	// ScopeAgent: one or more groups name the agent.
	ScopeAgent
	// ScopeGlobal: no group names the agent and the "*" group applies.
	ScopeGlobal
	// ScopeRobotsTxt: the target is /robots.txt itself, always allowed.
	ScopeRobotsTxt
)

func (s Scope) String() string {
	switch s {
	case ScopeAgent:
		return "agent"
	case ScopeGlobal:
		return "global"
	case ScopeRobotsTxt:
		return "robots.txt"
	}
	return "none"
}

// Decision explains an Allowed answer.
type Decision struct {
	Allowed bool
	Scope   Scope
	// Rule is the deciding rule, nil when no rule matched.
	Rule *Rule
	// Path is the path, params and query that were matched, in the reading
	// that decided.
	Path string
}

// Allowed reports whether agent may fetch target. agent is a product token
// or a whole User-Agent header; target is an absolute URL or a path with an
// optional query ("/a?b"). It does not allocate for an ASCII target that is
// already escaped.
func (r *Robots) Allowed(agent, target string) bool {
	allowed, _, _, _ := r.decide(agent, target)
	return allowed
}

// Explain is Allowed with its reasons.
func (r *Robots) Explain(agent, target string) Decision {
	allowed, scope, rl, path := r.decide(agent, target)
	d := Decision{Allowed: allowed, Scope: scope, Path: path}
	if rl != nil {
		d.Rule = &Rule{Allow: rl.Allow, Pattern: rl.Pattern, Line: rl.Line}
	}
	return d
}

func (r *Robots) decide(agent, target string) (bool, Scope, *rule, string) {
	path := pathParamsQuery(target)
	plain := plainURL(path)
	if !plain {
		path = literalURL(path)
	}
	if path == "/robots.txt" {
		return true, ScopeRobotsTxt, nil, path
	}
	rules, scope := r.rulesFor(agent)
	if rules == nil {
		return true, ScopeNone, nil, path
	}
	litRule := rules.lit.decide(path)
	canPath := path
	if !plain {
		canPath = canonical(path, true)
	}
	if rules.canon == nil && canPath == path {
		return litRule == nil || litRule.Allow, scope, litRule, path
	}
	canSet := rules.canon
	if canSet == nil {
		canSet = rules.lit
	}
	canRule := canSet.decide(canPath)
	// The stricter reading wins: see "Percent-encoding" in doc.go.
	if litRule != nil && !litRule.Allow {
		return false, scope, litRule, path
	}
	if canRule != nil && !canRule.Allow {
		return false, scope, canRule, canPath
	}
	if litRule != nil {
		return true, scope, litRule, path
	}
	return true, scope, canRule, canPath
}

// rulesFor returns the merged rules that apply to agent and where they come
// from, or nil when no group applies.
func (r *Robots) rulesFor(agent string) (*agentRules, Scope) {
	if r == nil {
		return nil, ScopeNone
	}
	if e := r.lookup(productToken(agent)); e != nil {
		return r.rules(e), ScopeAgent
	}
	if r.global != nil {
		return r.rules(r.global), ScopeGlobal
	}
	return nil, ScopeNone
}

func (r *Robots) lookup(token string) *agentEntry {
	if token == "" || len(r.agents) == 0 && r.index == nil {
		return nil
	}
	var buf [64]byte
	b := buf[:0]
	if len(token) > len(buf) {
		b = make([]byte, 0, len(token))
	}
	for i := 0; i < len(token); i++ {
		b = append(b, lower(token[i]))
	}
	if r.index != nil {
		return r.index[string(b)]
	}
	for _, a := range r.agents {
		if a.token == string(b) {
			return a.entry
		}
	}
	return nil
}

// CrawlDelay returns the Crawl-delay that applies to agent: the largest one
// in the groups that name it, else the "*" group's. ok is false when
// neither has one.
func (r *Robots) CrawlDelay(agent string) (time.Duration, bool) {
	if a := r.records(agent, func(a *agentRules) bool { return a.hasDelay }); a != nil {
		return a.delay, true
	}
	return 0, false
}

// RequestRate returns the strictest Request-rate (the longest interval)
// that applies to agent, from the groups that name it, else from the "*"
// group. A rate with a Window applies only inside it; RequestRates returns
// them all.
func (r *Robots) RequestRate(agent string) (Rate, bool) {
	rates := r.RequestRates(agent)
	if len(rates) == 0 {
		return Rate{}, false
	}
	best := rates[0]
	for _, rt := range rates[1:] {
		if rt.Interval() > best.Interval() {
			best = rt
		}
	}
	return best, true
}

// RequestRates returns every Request-rate record that applies to agent, in
// file order.
func (r *Robots) RequestRates(agent string) []Rate {
	if a := r.records(agent, func(a *agentRules) bool { return len(a.rates) > 0 }); a != nil {
		return append([]Rate(nil), a.rates...)
	}
	return nil
}

// records picks the agent's own groups when they carry the record asked
// for, else the "*" groups (Bing's inheritance).
func (r *Robots) records(agent string, has func(*agentRules) bool) *agentRules {
	if r == nil {
		return nil
	}
	if e := r.lookup(productToken(agent)); e != nil {
		if a := r.rules(e); has(a) {
			return a
		}
	}
	if r.global != nil {
		if a := r.rules(r.global); has(a) {
			return a
		}
	}
	return nil
}

// Sitemaps returns the Sitemap URLs of the file, in file order, without
// duplicates, exactly as written (relative ones are not resolved).
func (r *Robots) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return append([]string(nil), r.sitemaps...)
}

// pathParamsQuery extracts path, params and query from an absolute URL or
// a path, dropping the fragment; "/" when there is no path. It follows
// Google's GetPathParamsQuery so that odd inputs decide the same way.
func pathParamsQuery(url string) string {
	start := 0
	if len(url) >= 2 && url[0] == '/' && url[1] == '/' {
		start = 2
	}
	early := indexAnyFrom(url, "/?;", start)
	protoEnd := indexFrom(url, "://", start)
	if early >= 0 && (protoEnd < 0 || early < protoEnd) {
		protoEnd = -1
	}
	if protoEnd < 0 {
		protoEnd = start
	} else {
		protoEnd += 3
	}
	pathStart := indexAnyFrom(url, "/?;", protoEnd)
	if pathStart < 0 {
		return "/"
	}
	hash := indexFrom(url, "#", start)
	if hash >= 0 && hash < pathStart {
		return "/"
	}
	end := len(url)
	if hash >= 0 {
		end = hash
	}
	if url[pathStart] != '/' {
		return "/" + url[pathStart:end]
	}
	return url[pathStart:end]
}

func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}

func indexAnyFrom(s, chars string, from int) int {
	if from > len(s) {
		return -1
	}
	if i := strings.IndexAny(s[from:], chars); i >= 0 {
		return from + i
	}
	return -1
}
