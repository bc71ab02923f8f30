package robots

import (
	"reflect"
	"testing"
)

// TestLines: the lines of the groups that apply to an agent: its own
// groups (both of them, merged as RFC 9309 says) before "*", else "*".
func TestLines(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /all\n\nUser-agent: politecrawl\nDisallow: /a\nCrawl-delay: 2\n\nUser-agent: other\nDisallow: /\n\nUser-agent: politecrawl\nAllow: /b\n")
	r := Parse(body)
	for i, c := range []struct {
		agent string
		lines []int
		scope Scope
	}{
		{"politecrawl", []int{5, 6, 12}, ScopeAgent},
		{"PoliteCrawl/1.0 (+https://example.org)", []int{5, 6, 12}, ScopeAgent},
		{"somebot", []int{2}, ScopeGlobal},
	} {
		lines, scope := r.Lines(c.agent)
		if !reflect.DeepEqual(lines, c.lines) || scope != c.scope {
			t.Errorf("step %d: Lines(%q) = %v, %v; want %v, %v", i, c.agent, lines, scope, c.lines, c.scope)
		}
	}
	if lines, scope := Parse([]byte("User-agent: x\nDisallow: /\n")).Lines("y"); lines != nil || scope != ScopeNone {
		t.Errorf("no group for y: %v, %v", lines, scope)
	}
}
