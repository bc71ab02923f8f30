package robots

import "strings"

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
