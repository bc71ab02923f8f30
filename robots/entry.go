package robots

import (
	"sync"
	"sync/atomic"
	"time"
)

// agentEntry is everything that applies to one agent: the groups that name
// it, merged and compiled on first use. Building lazily keeps Parse cheap,
// and bounded on files that name thousands of agents: only agents that are
// asked about cost time and memory.
type agentEntry struct {
	groups []int32 // indices in Robots.groups, in file order
	mu     sync.Mutex
	rules  atomic.Pointer[agentRules]
}

// agentName is an agent's lower-case product token and its entry.
type agentName struct {
	token string
	entry *agentEntry
}

// agentRules is the merged, compiled view of an agent's groups.
type agentRules struct {
	lit, canon *ruleSet // canon is nil when it would equal lit
	delay      time.Duration
	hasDelay   bool
	rates      []Rate
	uses       []useRule // Content-Usage and Content-Signal lines, in file order
}

// rules returns e's merged rules, building them on the first call. Safe for
// concurrent use: one caller builds, the others wait for it.
func (r *Robots) rules(e *agentEntry) *agentRules {
	if a := e.rules.Load(); a != nil {
		return a
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if a := e.rules.Load(); a != nil {
		return a
	}
	a := r.merge(e.groups)
	e.rules.Store(a)
	return a
}

// setAgents builds the entries: one per agent token with the groups that
// name it, one for the "*" groups. Agents named by exactly the same single
// group share one entry, so its merge is built at most once for them.
func (r *Robots) setAgents(tokens []agentToken, namings []naming) {
	byAgent, end := groupsByAgent(len(tokens), namings)
	entries := make([]agentEntry, 0, len(tokens)+1) // never grows: entries are pointed to
	shared := make([]*agentEntry, len(r.groups))
	names := make([]agentName, len(tokens))
	begin := int32(0)
	for a, t := range tokens {
		gs := byAgent[begin:end[a]:end[a]]
		begin = end[a]
		e := shared[gs[0]]
		if e == nil || len(gs) > 1 {
			entries = append(entries, agentEntry{groups: gs})
			e = &entries[len(entries)-1]
		}
		if len(gs) == 1 {
			shared[gs[0]] = e
		}
		names[a] = agentName{token: t.in(r.text), entry: e}
	}
	r.setNames(names)
	if global := r.globalGroups(); len(global) > 0 {
		entries = append(entries, agentEntry{groups: global})
		r.global = &entries[len(entries)-1]
	}
}

// groupsByAgent sorts the groups named by each agent into one array, in
// file order: agent a's are byAgent[end[a-1]:end[a]] (from 0 for a = 0).
func groupsByAgent(agents int, namings []naming) (byAgent, end []int32) {
	end = make([]int32, agents+1)
	for _, n := range namings {
		end[n.agent+1]++
	}
	for a := 1; a <= agents; a++ {
		end[a] += end[a-1]
	}
	// end[a] is now where a's groups begin; filling moves it to their end.
	byAgent = make([]int32, len(namings))
	for _, n := range namings {
		byAgent[end[n.agent]] = n.group
		end[n.agent]++
	}
	return byAgent, end[:agents]
}

func (r *Robots) setNames(names []agentName) {
	if len(names) <= linearMax {
		r.agents = names
		return
	}
	r.index = make(map[string]*agentEntry, len(names))
	for _, n := range names {
		r.index[n.token] = n.entry
	}
}

func (r *Robots) globalGroups() []int32 {
	n := 0
	for _, g := range r.groups {
		if g.global {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]int32, 0, n)
	for i, g := range r.groups {
		if g.global {
			out = append(out, int32(i))
		}
	}
	return out
}

// groupRecords returns the records of group g.
func (r *Robots) groupRecords(g int32) []record {
	end := int32(len(r.recs))
	if int(g)+1 < len(r.groups) {
		end = r.groups[g+1].first
	}
	return r.recs[r.groups[g].first:end]
}

// merge reads and compiles the records of groups into one agentRules.
func (r *Robots) merge(groups []int32) *agentRules {
	n := 0
	for _, g := range groups {
		n += len(r.groupRecords(g))
	}
	a := &agentRules{}
	c := newCompiler(n)
	for _, g := range groups {
		for _, rec := range r.groupRecords(g) {
			a.add(c, rec, rec.in(r.text))
		}
	}
	a.lit = newRuleSet(c.lit)
	if c.canon != nil {
		a.canon = newRuleSet(c.canon)
	}
	return a
}

// add reads one record: a rule goes to c, a valid delay or rate to a.
func (a *agentRules) add(c *compiler, rec record, value string) {
	switch rec.kind {
	case fieldAllow, fieldDisallow:
		c.add(rec.kind == fieldAllow, value, int(rec.line))
	case fieldCrawlDelay:
		if d, ok := parseCrawlDelay(value); ok && (!a.hasDelay || d > a.delay) {
			a.delay, a.hasDelay = d, true
		}
	case fieldRequestRate:
		if rt, ok := parseRequestRate(value); ok {
			a.rates = append(a.rates, rt)
		}
	case fieldContentUsage, fieldContentSignal:
		if u, ok := newUseRule(rec.kind, value, int(rec.line)); ok {
			a.uses = append(a.uses, u)
		}
	}
}
