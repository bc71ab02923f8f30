package contentuse

// A parser for the Dictionary of RFC 9651 (Structured Field Values),
// section 4.2.2, as far as the vocabulary needs it: each member's key and
// whether its value is a Token (and which). Every other bare item type and
// inner lists and parameters are parsed for syntax only, so that a
// malformed dictionary fails as a whole, as the draft requires ("if the
// parsing of the Dictionary fails, no preferences are stated").

// maxDictLen bounds the input parsed: real expressions are a few dozen
// bytes; anything longer states nothing rather than cost time.
const maxDictLen = 8 << 10

// member is one dictionary member: its key and its value if a Token
// ("" for any other value, including the boolean of a bare key).
type member struct {
	key, token string
}

// parseDict returns the members of s in order, the last of each key
// winning (RFC 9651 4.2.2: a repeated key overwrites), or ok false when
// s is not a valid dictionary.
func parseDict(s string) (members []member, ok bool) {
	if len(s) > maxDictLen {
		return nil, false
	}
	p := sfParser{s: s}
	p.skipSP()
	if p.done() {
		return nil, true // an empty field: no members
	}
	for {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		var m member
		m.key = key
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				if !p.innerList() {
					return nil, false
				}
			} else {
				tok, ok := p.bareItem()
				if !ok {
					return nil, false
				}
				m.token = tok
			}
		}
		if !p.params() {
			return nil, false
		}
		members = setMember(members, m)
		p.skipOWS()
		if p.done() {
			return members, true
		}
		if p.peek() != ',' {
			return nil, false
		}
		p.i++
		p.skipOWS()
		if p.done() {
			return nil, false // a trailing comma
		}
	}
}

// setMember overwrites an earlier member of the same key in place (the
// dictionary keeps the first position), else appends.
func setMember(ms []member, m member) []member {
	for i := range ms {
		if ms[i].key == m.key {
			ms[i] = m
			return ms
		}
	}
	return append(ms, m)
}

type sfParser struct {
	s string
	i int
}

func (p *sfParser) done() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *sfParser) skipSP() {
	for p.peek() == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
		p.i++
	}
}

func isLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool   { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || 'A' <= c && c <= 'Z' }

// key: ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
func (p *sfParser) key() (string, bool) {
	start := p.i
	if c := p.peek(); !isLCAlpha(c) && c != '*' {
		return "", false
	}
	p.i++
	for c := p.peek(); isLCAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*'; c = p.peek() {
		p.i++
	}
	return p.s[start:p.i], true
}

// params: *( ";" *SP key [ "=" bare-item ] )
func (p *sfParser) params() bool {
	for p.peek() == ';' {
		p.i++
		p.skipSP()
		if _, ok := p.key(); !ok {
			return false
		}
		if p.peek() == '=' {
			p.i++
			if _, ok := p.bareItem(); !ok {
				return false
			}
		}
	}
	return true
}

// innerList: "(" *SP [ item *( 1*SP item ) *SP ] ")" parameters
func (p *sfParser) innerList() bool {
	p.i++ // '('
	for {
		p.skipSP()
		if p.peek() == ')' {
			p.i++
			return p.params()
		}
		if _, ok := p.bareItem(); !ok || !p.params() {
			return false
		}
		if c := p.peek(); c != ' ' && c != ')' {
			return false
		}
	}
}

// bareItem parses any bare item; it returns the token when it is one.
func (p *sfParser) bareItem() (token string, ok bool) {
	c := p.peek()
	switch {
	case c == '-' || isDigit(c):
		return "", p.number()
	case c == '"':
		return "", p.str()
	case c == '*' || isAlpha(c):
		return p.token(), true
	case c == ':':
		return "", p.bytes()
	case c == '?':
		p.i++
		if c := p.peek(); c == '0' || c == '1' {
			p.i++
			return "", true
		}
		return "", false
	case c == '@':
		p.i++
		return "", p.number()
	case c == '%':
		p.i++
		return "", p.displayString()
	}
	return "", false
}

// number: integer (up to 15 digits) or decimal (12.3 digits).
func (p *sfParser) number() bool {
	if p.peek() == '-' {
		p.i++
	}
	digits, frac, dot := 0, 0, false
	for c := p.peek(); isDigit(c) || c == '.' && !dot; c = p.peek() {
		switch {
		case c == '.':
			if digits == 0 || digits > 12 {
				return false
			}
			dot = true
		case dot:
			frac++
		default:
			digits++
		}
		p.i++
	}
	if dot {
		return frac >= 1 && frac <= 3
	}
	return digits >= 1 && digits <= 15
}

func (p *sfParser) str() bool {
	p.i++
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if n := p.peek(); n != '"' && n != '\\' {
				return false
			}
			p.i++
		case c == '"':
			return true
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

// token: ( ALPHA / "*" ) *( tchar / ":" / "/" )
func (p *sfParser) token() string {
	start := p.i
	p.i++
	for c := p.peek(); isTchar(c) || c == ':' || c == '/'; c = p.peek() {
		p.i++
	}
	return p.s[start:p.i]
}

func isTchar(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

func (p *sfParser) bytes() bool {
	p.i++
	for !p.done() {
		c := p.s[p.i]
		p.i++
		if c == ':' {
			return true
		}
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return false
		}
	}
	return false
}

func (p *sfParser) displayString() bool {
	if p.peek() != '"' {
		return false
	}
	p.i++
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return true
		case c == '%':
			if p.i+2 > len(p.s) || !isLowerHex(p.s[p.i]) || !isLowerHex(p.s[p.i+1]) {
				return false
			}
			p.i += 2
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

func isLowerHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' }
