package robots

import (
	"fmt"
	"testing"
)

func TestUseRules(t *testing.T) {
	// draft-ietf-aipref-attach's Figure 2 and its Table 1, then
	// Cloudflare's managed robots.txt shape, then lines to tolerate.
	attach := "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\n" +
		"User-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n"
	cloudflare := "# As a condition of accessing this website, you agree to abide by the following content signals:\n" +
		"User-Agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n"
	for i, tc := range []struct {
		file, agent, url string
		want             string
	}{
		{attach, "OtherBot", "/test", "Content-Usage [] train-ai=n (4)"},
		{attach, "OtherBot", "http://example.com/ai-ok/test", "Content-Usage [/ai-ok/] train-ai=y (5)"},
		{attach, "ExampleBot/1.0", "/ai-ok/test", "Content-Usage [] train-ai=y (9)"},
		{cloudflare, "politecrawl", "/any", "Content-Signal [] search=yes, ai-train=no (3)"},
		// Both fields apply side by side; rules with one path tie and combine.
		{"User-agent: *\nContent-Signal: ai-train=no\nContent-Usage: /a search=y\nContent-Usage: /a train-ai=n\n", "x", "/a/b",
			"Content-Usage [/a] search=y (3); Content-Usage [/a] train-ai=n (4); Content-Signal [] ai-train=no (2)"},
		// A tab separates the path too; * and $ match as in allow rules.
		{"User-agent: *\nContent-Usage: /*.pdf$\ttrain-ai=n\n", "x", "/doc.pdf", "Content-Usage [/*.pdf$] train-ai=n (2)"},
		{"User-agent: *\nContent-Usage: /*.pdf$\ttrain-ai=n\n", "x", "/doc.pdf?x", ""},
		// Percent-encoding as for allow and disallow.
		{"User-agent: *\nContent-Usage: /caf\xc3\xa9 train-ai=n\n", "x", "/caf%C3%A9", "Content-Usage [/caf%C3%A9] train-ai=n (2)"},
		// A comment ends the value; odd case and a missing colon are read.
		{"User-agent: *\ncontent-usage: train-ai=n # not search=y\n", "x", "/", "Content-Usage [] train-ai=n (2)"},
		{"User-agent: *\nCONTENT-SIGNAL ai-input=no\n", "x", "/", "Content-Signal [] ai-input=no (2)"},
		// Malformed: no expression, before any group, empty.
		{"User-agent: *\nContent-Usage: /only-a-path\nContent-Usage:\n", "x", "/only-a-path", ""},
		{"Content-Signal: ai-train=no\nUser-agent: *\nDisallow: /x\n", "x", "/", ""},
		// The agent's own group, not "*", when one names it (RFC 9309 groups).
		{"User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\nUser-agent: x\nAllow: /\n", "x", "/", ""},
		// Content-use lines do not end a run of user-agent lines (unlike
		// allow and disallow): here x shares the "*" group, as it did
		// before the lines were read at all.
		{"User-agent: *\nContent-Signal: ai-train=no\n\nUser-agent: x\nAllow: /\n", "x", "/", "Content-Signal [] ai-train=no (2)"},
	} {
		got := ""
		for j, u := range Parse([]byte(tc.file)).UseRules(tc.agent, tc.url) {
			if j > 0 {
				got += "; "
			}
			got += fmt.Sprintf("%s [%s] %s (%d)", u.Field, u.Pattern, u.Value, u.Line)
		}
		if got != tc.want {
			t.Errorf("case %d: UseRules(%q, %q) = %q, want %q", i, tc.agent, tc.url, got, tc.want)
		}
	}
}

// Content-use lines are other records: they never change how a file groups
// or what it allows.
func TestUseRulesLeaveGroupsAlone(t *testing.T) {
	with := "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\nContent-Signal: search=yes\nAllow: /x/y\n"
	without := "User-agent: a\nUser-agent: b\nDisallow: /x\nAllow: /x/y\n"
	rw, ro := Parse([]byte(with)), Parse([]byte(without))
	for _, agent := range []string{"a", "b", "c"} {
		for _, u := range []string{"/", "/x", "/x/y", "/z"} {
			if rw.Allowed(agent, u) != ro.Allowed(agent, u) {
				t.Errorf("%s %s: allowed %v with content-use lines, %v without", agent, u, rw.Allowed(agent, u), ro.Allowed(agent, u))
			}
		}
	}
	if got := rw.UseRules("a", "/"); len(got) != 2 {
		t.Errorf("agent a gets %d content-use lines, want both of its group's", len(got))
	}
}
