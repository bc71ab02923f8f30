package scope

import (
	"sort"
	"strings"
)

// prefixTable answers "which of these prefixes does s start with?" without
// looping over them: the prefixes are sorted, and each knows the longest
// other prefix it starts with (its parent). For any s, every prefix p of s
// sorts between p and s, so the largest entry not after s starts with
// every prefix of s in the table: the answer is that entry or one of its
// ancestors, and the chain is as long as the prefixes nest, not as long as
// the table. The zero value matches nothing.
type prefixTable struct {
	keys   []string
	rule   []int // index into Scope.rules
	parent []int // index into keys of the longest proper prefix, or -1
}

// newPrefixTable builds a table from prefix -> rule index. A prefix given
// twice keeps its first rule.
func newPrefixTable(prefixes []string, rules []int) prefixTable {
	idx := make([]int, len(prefixes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return prefixes[idx[a]] < prefixes[idx[b]] })
	var t prefixTable
	for _, i := range idx {
		if n := len(t.keys); n > 0 && t.keys[n-1] == prefixes[i] {
			continue
		}
		t.keys = append(t.keys, prefixes[i])
		t.rule = append(t.rule, rules[i])
		t.parent = append(t.parent, -1)
	}
	// A sorted table's entries that a key starts with come before it;
	// the nearest one is found up the previous entry's chain.
	for i := 1; i < len(t.keys); i++ {
		for p := i - 1; p >= 0; p = t.parent[p] {
			if strings.HasPrefix(t.keys[i], t.keys[p]) {
				t.parent[i] = p
				break
			}
		}
	}
	return t
}

// match returns the rule of the longest prefix s starts with, or -1.
func (t *prefixTable) match(s string) int {
	// The first key after s; the one before it is the largest not after s.
	i := sort.Search(len(t.keys), func(i int) bool { return t.keys[i] > s }) - 1
	for ; i >= 0; i = t.parent[i] {
		if strings.HasPrefix(s, t.keys[i]) {
			return t.rule[i]
		}
	}
	return -1
}

func (t *prefixTable) len() int { return len(t.keys) }
