package robots

import (
	"slices"
	"strings"
)

// Rule is one allow or disallow line as it applies to a decision.
type Rule struct {
	Allow   bool   // an allow rule; false for disallow
	Pattern string // the pattern as compared, after percent-encoding
	Line    int    // line number in the file, from 1
}

// rule is a compiled pattern. A pattern is a literal prefix, then optional
// '*'-separated segments, then an optional '$' anchor. Matching is greedy
// and leftmost, which is exact for these patterns and linear in the path:
// no backtracking, whatever the pattern.
type rule struct {
	Rule
	prio     int      // pattern length in octets, '*' and '$' included
	lit      string   // bytes before the first '*'
	segs     []string // non-empty segments after the first '*'
	star     bool     // the pattern contains '*'
	tailStar bool     // the pattern ends in '*' (before any '$')
	anchored bool     // the pattern ends in '$'
	need     uint64   // byteMask of every literal byte the pattern needs
}

// byteMask folds the set of bytes in s into 64 bits. A rule whose need has
// a bit the path's mask lacks cannot match: a cheap reject before scanning.
func byteMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		m |= 1 << (s[i] & 63)
	}
	return m
}

func compileRule(pattern string, allow bool, line int) *rule {
	r := &rule{}
	var segs []string
	r.compile(pattern, allow, line, &segs)
	return r
}

// compile sets r to the compiled pattern. Its segments are appended to
// *segs, which several rules may share.
func (r *rule) compile(pattern string, allow bool, line int, segs *[]string) {
	*r = rule{Rule: Rule{Allow: allow, Pattern: pattern, Line: line}, prio: len(pattern)}
	p := pattern
	if strings.HasSuffix(p, "$") {
		r.anchored = true
		p = p[:len(p)-1]
	}
	// '*' is no literal byte. Clearing its bit also drops any byte that
	// folds onto it ('j'): a weaker filter, never a wrong one.
	r.need = byteMask(p) &^ (1 << ('*' & 63))
	i := strings.IndexByte(p, '*')
	if i < 0 {
		r.lit = p
		return
	}
	r.lit, r.star = p[:i], true
	r.tailStar = strings.HasSuffix(p, "*")
	start := len(*segs)
	for rest := p[i+1:]; rest != ""; {
		j := strings.IndexByte(rest, '*')
		if j < 0 {
			*segs = append(*segs, rest)
			break
		}
		if j > 0 {
			*segs = append(*segs, rest[:j])
		}
		rest = rest[j+1:]
	}
	if end := len(*segs); end > start {
		r.segs = (*segs)[start:end:end]
	}
}

// match reports whether the rule matches path from its first byte.
func (r *rule) match(path string) bool {
	if !strings.HasPrefix(path, r.lit) {
		return false
	}
	if !r.star {
		return !r.anchored || len(path) == len(r.lit)
	}
	pos := len(r.lit)
	segs := r.segs
	if r.anchored && !r.tailStar && len(segs) > 0 {
		// The last segment must end the path; the others are found greedily
		// before it.
		last := segs[len(segs)-1]
		segs = segs[:len(segs)-1]
		if !r.matchSegs(path, &pos, segs) {
			return false
		}
		return len(path)-len(last) >= pos && strings.HasSuffix(path, last)
	}
	return r.matchSegs(path, &pos, segs)
}

func (r *rule) matchSegs(path string, pos *int, segs []string) bool {
	for _, s := range segs {
		i := strings.Index(path[*pos:], s)
		if i < 0 {
			return false
		}
		*pos += i + len(s)
	}
	return true
}

// before orders rules by precedence: longer patterns first, allow before
// disallow on a tie, then file order. The first rule in this order that
// matches a path decides it.
func before(a, b *rule) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.Allow != b.Allow {
		return a.Allow
	}
	return a.Line < b.Line
}

func byPrecedence(a, b *rule) int {
	switch {
	case before(a, b):
		return -1
	case before(b, a):
		return 1
	}
	return 0
}

// ruleSet is the compiled rules of one agent (all its groups merged), in
// one percent-encoding reading. Rules are indexed by the second byte of
// their literal prefix (the first is always '/'), so a decision looks only
// at rules that can match and stops at the first hit.
type ruleSet struct {
	short []*rule // literal prefix shorter than 2 bytes, or every rule of a small set
	// byLit[start[c]:start[c+1]] are the other rules whose lit[1] is c;
	// start is nil for small sets.
	byLit []*rule
	start *[257]int32
}

// indexMin is the rule count from which a set is indexed. Small sets are
// scanned in order: cheaper than the index, and a file of many tiny groups
// cannot make the index cost memory per agent.
const indexMin = 12

// newRuleSet sorts rules into precedence order, in place, and indexes them.
// The order is total (no two rules of a set share prio, kind and line), so
// an unstable sort gives the one answer.
func newRuleSet(rules []*rule) *ruleSet {
	slices.SortFunc(rules, byPrecedence)
	if len(rules) < indexMin {
		return &ruleSet{short: rules}
	}
	s := &ruleSet{start: new([257]int32)}
	for _, r := range rules {
		if len(r.lit) >= 2 {
			s.start[int(r.lit[1])+1]++
		}
	}
	for c := 1; c < len(s.start); c++ {
		s.start[c] += s.start[c-1]
	}
	s.byLit = make([]*rule, s.start[256])
	next := *s.start
	short := rules[:0] // the short rules move down in place: the write never passes the read
	for _, r := range rules {
		if len(r.lit) < 2 {
			short = append(short, r)
			continue
		}
		s.byLit[next[r.lit[1]]] = r
		next[r.lit[1]]++
	}
	s.short = short
	return s
}

// decide returns the rule that decides path, or nil when none matches.
func (s *ruleSet) decide(path string) *rule {
	a := s.short
	var b []*rule
	if s.start != nil && len(path) >= 2 {
		c := path[1]
		b = s.byLit[s.start[c]:s.start[int(c)+1]]
	}
	mask := byteMask(path)
	// Merge the two precedence-ordered lists; the first match wins.
	for len(a) > 0 || len(b) > 0 {
		var r *rule
		if len(b) == 0 || len(a) > 0 && before(a[0], b[0]) {
			r, a = a[0], a[1:]
		} else {
			r, b = b[0], b[1:]
		}
		if r.need&^mask == 0 && r.match(path) {
			return r
		}
	}
	return nil
}
