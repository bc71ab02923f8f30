package robots

import (
	"bytes"
	"slices"
)

// Parse does one pass over the lines and keeps them raw: which groups there
// are, which agents name them, and for each group its records as spans of
// one string. Patterns are escaped and compiled, and Crawl-delay and
// Request-rate values read, only when an agent the group applies to is
// first asked about (see entry.go). A crawler asks about one agent, so it
// never pays for the groups of the others.

// record is an allow, disallow, crawl-delay, request-rate, content-usage or
// content-signal line of a group,
// its value a span of Robots.text.
type record struct {
	span
	line int32
	kind field
}

// span is a run of Robots.text (of parser.buf while parsing).
type span struct{ off, n uint32 }

func (s span) in(text string) string { return text[s.off : s.off+s.n] }

// group is one run of user-agent lines and the records that follow it:
// Robots.recs from first up to the next group's first.
type group struct {
	first  int32
	global bool // a "*" line names it
}

// agentToken is a distinct agent token, lower-case, in parser.buf, and the
// last group that named it.
type agentToken struct {
	span
	last int32
}

// naming says that agent (an index in parser.agents) names group.
type naming struct{ agent, group int32 }

// linearMax is how many agents are looked up by a linear scan; past it, a
// map. Real files name a handful.
const linearMax = 8

// parser holds the state of one Parse. It mirrors Google's: a user-agent
// line starts a new group only once the current group has had a rule.
type parser struct {
	buf      []byte // the values kept: becomes Robots.text
	recs     []record
	groups   []group
	inRules  bool
	agents   []agentToken
	index    map[string]int32 // token to index in agents, once there are many
	namings  []naming         // in file order
	sitemaps []span
}

// Parse reads a robots.txt body. It never fails and never panics: lines it
// cannot use are skipped. Only the first MaxSize bytes are read.
func Parse(body []byte) *Robots {
	body = skipBOM(limit(body))
	// Every kept value is a distinct part of body, so buf never grows. A
	// record needs a line of at least 8 bytes ("allow:/\n"), so unless LF
	// and CR line ends are mixed recs does not grow either.
	lines := max(bytes.Count(body, []byte{'\n'}), bytes.Count(body, []byte{'\r'})) + 1
	p := &parser{
		buf:     make([]byte, 0, len(body)),
		recs:    make([]record, 0, min(lines, len(body)/8+1)),
		groups:  make([]group, 0, 8),
		agents:  make([]agentToken, 0, 8),
		namings: make([]naming, 0, 8),
	}
	scanLines(body, p.line)
	return p.finish()
}

func (p *parser) line(num int, line []byte) {
	key, value, ok := splitLine(line)
	if !ok {
		return
	}
	switch f := parseField(key); f {
	case fieldUserAgent:
		p.userAgent(value)
	case fieldAllow, fieldDisallow:
		p.rule(f, value, num)
	case fieldSitemap:
		if len(value) > 0 {
			p.sitemaps = append(p.sitemaps, p.keep(value))
		}
	case fieldCrawlDelay, fieldRequestRate, fieldContentUsage, fieldContentSignal:
		// Content-Usage is a rule in draft-ietf-aipref-attach's grammar,
		// but like the other records here it never ends a run of
		// user-agent lines: files without it must group as before.
		if len(p.groups) > 0 && len(value) > 0 {
			p.recs = append(p.recs, record{span: p.keep(value), line: int32(num), kind: f})
		}
	}
}

func (p *parser) userAgent(value []byte) {
	if len(p.groups) == 0 || p.inRules {
		p.groups = append(p.groups, group{first: int32(len(p.recs))})
		p.inRules = false
	}
	g := int32(len(p.groups) - 1)
	token, global := groupAgent(value)
	switch {
	case global:
		p.groups[g].global = true
	case len(token) > 0:
		if a := p.agent(token); p.agents[a].last != g {
			p.agents[a].last = g
			p.namings = append(p.namings, naming{agent: a, group: g})
		}
	}
}

// rule records an allow or disallow line. Rules before the first
// user-agent line are ignored. An empty value is no rule, but it still ends
// the run of user-agent lines, and so does a value that can never match:
// paths start with '/', so a pattern must start with '/' or '*' (which
// both escapings keep).
func (p *parser) rule(f field, value []byte, num int) {
	if len(p.groups) == 0 {
		return
	}
	p.inRules = true
	if len(value) == 0 || value[0] != '/' && value[0] != '*' {
		return
	}
	p.recs = append(p.recs, record{span: p.keep(value), line: int32(num), kind: f})
}

// keep copies b into buf.
func (p *parser) keep(b []byte) span {
	off := len(p.buf)
	p.buf = append(p.buf, b...)
	return span{uint32(off), uint32(len(b))}
}

// agent returns the index of token (compared in lower case), adding it if
// it is new.
func (p *parser) agent(token []byte) int32 {
	off := len(p.buf)
	for _, c := range token {
		p.buf = append(p.buf, lower(c))
	}
	low := p.buf[off:]
	if a, ok := p.find(low); ok {
		p.buf = p.buf[:off]
		return a
	}
	a := int32(len(p.agents))
	p.agents = append(p.agents, agentToken{span{uint32(off), uint32(len(low))}, -1})
	switch {
	case p.index != nil:
		p.index[string(low)] = a
	case len(p.agents) > linearMax:
		p.index = make(map[string]int32, 2*len(p.agents))
		for i, t := range p.agents {
			p.index[string(p.buf[t.off:t.off+t.n])] = int32(i)
		}
	}
	return a
}

func (p *parser) find(low []byte) (int32, bool) {
	if p.index != nil {
		a, ok := p.index[string(low)]
		return a, ok
	}
	for i, t := range p.agents {
		if string(p.buf[t.off:t.off+t.n]) == string(low) {
			return int32(i), true
		}
	}
	return 0, false
}

func (p *parser) finish() *Robots {
	r := &Robots{text: string(p.buf), recs: p.recs, groups: p.groups}
	if cap(r.recs)-len(r.recs) > len(r.recs)/4+16 {
		r.recs = slices.Clone(r.recs) // do not keep room for comment lines
	}
	r.sitemaps = uniqueSpans(r.text, p.sitemaps)
	r.setAgents(p.agents, p.namings)
	return r
}

// uniqueSpans returns the strings of spans, in order, without duplicates.
func uniqueSpans(text string, spans []span) []string {
	if len(spans) == 0 {
		return nil
	}
	out := make([]string, 0, len(spans))
	var seen map[string]bool
	if len(spans) > linearMax {
		seen = make(map[string]bool, len(spans))
	}
	for _, s := range spans {
		v := s.in(text)
		if seen != nil {
			if seen[v] {
				continue
			}
			seen[v] = true
		} else if contains(out, v) {
			continue
		}
		out = append(out, v)
	}
	return out
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
