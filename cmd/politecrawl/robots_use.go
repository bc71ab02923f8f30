package main

import (
	"fmt"
	"io"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/robots"
)

// printUses explains, under an allowed target, the Content-Usage and
// Content-Signal lines that apply to it and what they say of each use,
// as the crawl reads them (see "Content-use signals" in the README).
func printUses(w io.Writer, r *robots.Robots, agent, target string) {
	rules := r.UseRules(agent, target)
	var stmts []contentuse.Statement
	for _, u := range rules {
		fmt.Fprintf(w, "  %s: %s at line %d\n", u.Field, u.Value, u.Line)
		source := fmt.Sprintf("line %d", u.Line)
		if u.Field == "Content-Signal" {
			stmts = append(stmts, contentuse.ParseContentSignal(u.Value, source))
		} else {
			stmts = append(stmts, contentuse.ParseContentUsage(u.Value, source))
		}
	}
	if len(rules) > 0 {
		if s := contentuse.Combine(stmts).String(); s != "" {
			fmt.Fprintf(w, "  content use: %s\n", s)
		} else {
			fmt.Fprintf(w, "  content use: nothing stated (unreadable or unknown labels only)\n")
		}
	}
}
