package robots

// Lines returns the line numbers (1-based, in file order) of the records
// (allow, disallow, crawl-delay, request-rate lines) of the groups that
// apply to agent, and where they come from: the groups naming it, else
// the "*" groups (ScopeNone and no lines when neither exists). For
// showing a person which part of a file the crawl obeys.
func (r *Robots) Lines(agent string) ([]int, Scope) {
	if r == nil {
		return nil, ScopeNone
	}
	e, scope := r.lookup(productToken(agent)), ScopeAgent
	if e == nil {
		e, scope = r.global, ScopeGlobal
	}
	if e == nil {
		return nil, ScopeNone
	}
	var lines []int
	for _, g := range e.groups {
		for _, rec := range r.groupRecords(g) {
			lines = append(lines, int(rec.line))
		}
	}
	return lines, scope
}
