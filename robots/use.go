package robots

import "strings"

// Content-use lines: draft-ietf-aipref-attach's Content-Usage rule and
// Cloudflare's Content-Signal, which both attach a preference expression
// to the paths of a group. The package keeps their values as written and
// says which lines apply to a URL; reading the expressions is the
// content-use vocabulary's job, one layer up.

// UseRule is a Content-Usage or Content-Signal line that applies to a URL.
type UseRule struct {
	Field   string // "Content-Usage" or "Content-Signal"
	Pattern string // the path the line names, as compared; "" for none (every path)
	Value   string // the preference expression, as written
	Line    int    // line number in the file, from 1
}

// useRule is a UseRule with its compiled path; rule is nil when the line
// names no path.
type useRule struct {
	UseRule
	rule *rule
}

// newUseRule reads a line's value: an optional path (it starts with '/'
// and ends before the first space or tab, draft-ietf-aipref-attach 3.2),
// then the expression. ok is false when no expression is left.
func newUseRule(kind field, value string, line int) (useRule, bool) {
	u := useRule{UseRule: UseRule{Field: "Content-Usage", Line: line}}
	if kind == fieldContentSignal {
		u.Field = "Content-Signal"
	}
	if strings.HasPrefix(value, "/") {
		path, rest, _ := strings.Cut(strings.ReplaceAll(value, "\t", " "), " ")
		u.Pattern = googleEscape(path)
		u.rule = compileRule(u.Pattern, false, line)
		value = rest
	}
	u.Value = strings.TrimSpace(value)
	return u, u.Value != ""
}

// UseRules returns the Content-Usage and Content-Signal lines that apply to
// target for agent: from the groups that name the agent, else the "*"
// groups (the group the allow and disallow rules come from). For each of
// the two fields, the lines whose path matches target longest (in pattern
// octets, as for allow and disallow) apply, all of them when several tie
// (draft-ietf-aipref-attach 3.1: they combine); a line without a path
// matches every target with length zero. nil when none applies. The
// caller asks only about URLs the rules allow: a disallowed URL has no
// preferences (3.1).
func (r *Robots) UseRules(agent, target string) []UseRule {
	rules, _ := r.rulesFor(agent)
	if rules == nil || len(rules.uses) == 0 {
		return nil
	}
	path := pathParamsQuery(target)
	if !plainURL(path) {
		path = literalURL(path)
	}
	var out []UseRule
	for _, f := range []string{"Content-Usage", "Content-Signal"} {
		best := -1
		for _, u := range rules.uses {
			if u.Field == f && u.matches(path) {
				best = max(best, len(u.Pattern))
			}
		}
		for _, u := range rules.uses {
			if u.Field == f && len(u.Pattern) == best && u.matches(path) {
				out = append(out, u.UseRule)
			}
		}
	}
	return out
}

func (u *useRule) matches(path string) bool { return u.rule == nil || u.rule.match(path) }
