package contentuse

import (
	"fmt"
	"strings"

	"github.com/politecrawl/politecrawl/robots"
)

// RobotsUse returns the statements of the Content-Usage and Content-Signal
// lines of rules that apply to url for agent.
func RobotsUse(rules *robots.Robots, agent, url string) []Statement {
	var out []Statement
	for _, u := range rules.UseRules(agent, url) {
		source := fmt.Sprintf("robots.txt line %d: %s", u.Line, u.Field)
		if u.Pattern != "" {
			source += " " + u.Pattern
		}
		if u.Field == "Content-Signal" {
			out = append(out, ParseContentSignal(u.Value, source))
		} else {
			out = append(out, ParseContentUsage(u.Value, source))
		}
	}
	return out
}

// PathOf is url's path and query ("/" when it has no path).
func PathOf(url string) string {
	rest := url
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	i := strings.IndexAny(rest, "/?")
	if i < 0 {
		return "/"
	}
	if rest[i] == '?' {
		return "/" + rest[i:]
	}
	return rest[i:]
}
