package scope

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// patternSet matches URLs against many RE2 patterns without running each
// on every URL. Each pattern yields, where its syntax allows, a set of
// literals one of which every match contains (its prefilter); one
// Aho-Corasick pass over the URL, folded to lower case, finds which
// patterns' literals occur, and only those patterns (and the ones with no
// prefilter) run. A prefilter may let a pattern run for nothing, never
// skip one that matches. The zero value matches nothing.
type patternSet struct {
	res    []*regexp.Regexp
	rule   []int // rule index of each pattern
	always []int // patterns with no prefilter: run on every URL
	ac     acMachine
}

func newPatternSet(res []*regexp.Regexp, rules []int) patternSet {
	ps := patternSet{res: res, rule: rules}
	var lits []string
	var owner []int
	for i, re := range res {
		set := prefilter(re.String())
		if set == nil {
			ps.always = append(ps.always, i)
			continue
		}
		for _, l := range set {
			lits, owner = append(lits, strings.ToLower(l)), append(owner, i)
		}
	}
	ps.ac = newACMachine(lits, owner)
	return ps
}

// match returns the rule of the first pattern (in config order) that
// matches u, or -1.
func (ps *patternSet) match(u string) int {
	if len(ps.res) == 0 {
		return -1
	}
	var small [4]uint64
	cand := small[:]
	if n := (len(ps.res) + 63) / 64; n > len(small) {
		cand = make([]uint64, n)
	}
	for _, i := range ps.always {
		cand[i/64] |= 1 << (i % 64)
	}
	if !ps.ac.scan(u, cand) {
		for i := range ps.res {
			cand[i/64] |= 1 << (i % 64)
		}
	}
	for w, bits := range cand {
		for bits != 0 {
			b := trailingZeros(bits)
			bits &^= 1 << b
			if i := w*64 + b; ps.res[i].MatchString(u) {
				return ps.rule[i]
			}
		}
	}
	return -1
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// maxPrefilter bounds the literals one pattern's prefilter may hold; a
// pattern that would need more runs on every URL.
const maxPrefilter = 64

// prefilter returns literals one of which every match of expr contains,
// or nil when there is no such set (worth using).
func prefilter(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	set := required(re.Simplify())
	if len(set) == 0 || len(set) > maxPrefilter {
		return nil
	}
	return set
}

// required is prefilter on a parsed expression: nil for "no constraint".
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		return classLiterals(re.Rune)
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any one part's set will do: take the one whose shortest
		// literal is longest (the rarest to occur).
		var best []string
		for _, sub := range re.Sub {
			if s := required(sub); s != nil && (best == nil || shortest(s) > shortest(best)) {
				best = s
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			s := required(sub)
			if s == nil {
				return nil
			}
			all = append(all, s...)
		}
		return all
	}
	return nil
}

// classLiterals turns a small class ([?&], [Ss]) into its characters.
func classLiterals(ranges []rune) []string {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] > 8 {
			return nil
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			out = append(out, string(r))
		}
	}
	if len(out) > 16 {
		return nil
	}
	return out
}

func shortest(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}
