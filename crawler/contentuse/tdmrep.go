package contentuse

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxTDMRepSize bounds a tdmrep.json body read; a bigger file is treated
// as broken.
const MaxTDMRepSize = 64 << 10

// maxTDMRules bounds the rules kept from one file.
const maxTDMRules = 1000

// TDMRep is a parsed /.well-known/tdmrep.json: rules that give a
// tdm-reservation (and tdm-policy) to the paths their location matches.
// The zero value has no rules. Immutable after ParseTDMRep and safe for
// concurrent use.
type TDMRep struct {
	rules []tdmRule
}

type tdmRule struct {
	location    string
	reservation string // "0" or "1"
	policy      string
	n           int // 1-based position in the file
}

// tdmJSON is one entry of the file as written.
type tdmJSON struct {
	Location    *string         `json:"location"`
	Reservation json.RawMessage `json:"tdm-reservation"`
	Policy      string          `json:"tdm-policy"`
}

// ParseTDMRep reads a tdmrep.json body: a JSON array of rules with a
// location pattern, a tdm-reservation of 0 or 1, and an optional
// tdm-policy URL. A body that is not such an array, or is over
// MaxTDMRepSize, is an error (the caller treats the host as stating
// nothing); a rule without a location or a valid reservation is skipped.
func ParseTDMRep(body []byte) (*TDMRep, error) {
	if len(body) > MaxTDMRepSize {
		return nil, fmt.Errorf("tdmrep.json: %d bytes, over the %d byte limit", len(body), MaxTDMRepSize)
	}
	var entries []tdmJSON
	if err := json.Unmarshal(body, &entries); err != nil {
		return nil, fmt.Errorf("tdmrep.json: %w", err)
	}
	t := &TDMRep{}
	for i, e := range entries {
		if len(t.rules) == maxTDMRules {
			break
		}
		if e.Location == nil || !strings.HasPrefix(*e.Location, "/") {
			continue
		}
		res := strings.Trim(strings.TrimSpace(string(e.Reservation)), `"`)
		if res != "0" && res != "1" {
			continue
		}
		t.rules = append(t.rules, tdmRule{location: *e.Location, reservation: res, policy: e.Policy, n: i + 1})
	}
	return t, nil
}

// Statement returns the statement of the rule whose location matches path
// (the path and query of a URL), or an empty one when none does. Where
// several match, the longest location wins, then the first in the file.
// A location matches as a pattern: "*" matches any run of bytes, and the
// rest must match the whole path, so "/" is the home page only and "/*"
// every path.
func (t *TDMRep) Statement(path string) Statement {
	if t == nil {
		return Statement{}
	}
	var best *tdmRule
	for i := range t.rules {
		r := &t.rules[i]
		if (best == nil || len(r.location) > len(best.location)) && globMatch(r.location, path) {
			best = r
		}
	}
	if best == nil {
		return Statement{}
	}
	return ParseTDM(best.reservation, best.policy, fmt.Sprintf("tdmrep.json rule %d (%s)", best.n, best.location))
}

// globMatch reports whether pattern ("*" any run) matches all of s. The
// classic two-pointer match: linear in practice, at worst the product of
// the lengths, and both are bounded (the file's size, a URL).
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
