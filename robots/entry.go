package robots

import (
	"strings"
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
	}
}

// compiler builds the rules of an agent in both percent-encoding readings,
// allocating them in chunks rather than one by one.
type compiler struct {
	lit   []*rule // Google's reading: pattern escaped only
	canon []*rule // RFC 9309 canonical reading; nil while it equals lit
	slab  []rule  // where the next rules are placed
	segs  []string
}

func newCompiler(n int) *compiler {
	return &compiler{lit: make([]*rule, 0, n), slab: make([]rule, 0, n)}
}

// add compiles one allow or disallow pattern (which starts with '/' or '*').
func (c *compiler) add(allow bool, value string, line int) {
	lit := googleEscape(value)
	can := canonical(value, false)
	n := len(c.lit)
	c.lit = c.appendRule(c.lit, lit, allow, line)
	switch {
	case lit != can:
		if c.canon == nil {
			c.canon = append(make([]*rule, 0, cap(c.lit)), c.lit[:n]...)
		}
		c.canon = c.appendRule(c.canon, can, allow, line)
	case c.canon != nil:
		// The usual case: both readings share the compiled rules.
		c.canon = append(c.canon, c.lit[n:]...)
	}
}

// appendRule adds the compiled rule, and for an allow rule whose last path
// segment starts with "index.htm", Google's extra rule that allows the
// directory URL itself ("/a/index.html" also allows "/a/").
func (c *compiler) appendRule(rules []*rule, pattern string, allow bool, line int) []*rule {
	rules = append(rules, c.compile(pattern, allow, line))
	if allow {
		if i := strings.LastIndexByte(pattern, '/'); i >= 0 && strings.HasPrefix(pattern[i:], "/index.htm") {
			rules = append(rules, c.compile(pattern[:i+1]+"$", true, line))
		}
	}
	return rules
}

func (c *compiler) compile(pattern string, allow bool, line int) *rule {
	if len(c.slab) == cap(c.slab) {
		c.slab = make([]rule, 0, max(8, cap(c.slab)/2)) // a new chunk: earlier rules stay put
	}
	c.slab = c.slab[:len(c.slab)+1]
	r := &c.slab[len(c.slab)-1]
	r.compile(pattern, allow, line, &c.segs)
	return r
}
