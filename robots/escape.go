package robots

// This file holds the two readings of percent-encoding described in doc.go:
// Google's (escape the pattern only) and RFC 9309's canonical form (the same
// canonicalisation on both sides). Every function returns its input unchanged,
// without allocating, when there is nothing to rewrite.

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// special marks the bytes either reading may rewrite in a URL: '%', '*',
// '$' and every byte that must be escaped. A URL without them reads the
// same in both readings, which is the fast path of a decision.
var special = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c == '%' || c == '*' || c == '$' || mustEscape(byte(c))
	}
	return t
}()

// plainURL reports whether s has no special byte.
func plainURL(s string) bool {
	for i := 0; i < len(s); i++ {
		if special[s[i]] {
			return false
		}
	}
	return true
}

// mustEscape reports whether a byte may not appear raw in a URL: controls,
// space, bytes >= 0x80 and the characters RFC 3986 excludes.
func mustEscape(c byte) bool {
	if c <= ' ' || c >= 0x7F {
		return true
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return false
}

// googleEscape is Google's MaybeEscapePattern: upper-case the hex digits of
// %xx escapes and percent-encode bytes >= 0x80. Applied to patterns.
func googleEscape(s string) string { return literal(s, true) }

// literalURL is the URL side of Google's reading. Google compares the URL as
// given; we upper-case its hex digits as well (an equivalence RFC 3986
// guarantees), so "%e3" and "%E3" never decide differently.
func literalURL(s string) string { return literal(s, false) }

func literal(s string, escapeHigh bool) string {
	need := false
	for i := 0; i < len(s) && !need; i++ {
		c := s[i]
		need = escapeHigh && c >= 0x80 || c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) &&
			(s[i+1] >= 'a' || s[i+2] >= 'a')
	}
	if !need {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, '%', upper(s[i+1]), upper(s[i+2]))
			i += 2
		case escapeHigh && c >= 0x80:
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// canonical rewrites s into RFC 9309's comparison form: %xx hex upper-cased,
// escapes of unreserved characters decoded, a '%' that starts no escape
// encoded as %25, and bytes that may not appear raw encoded. On the URL side
// (isURL) '*' and '$' are literal characters and become %2A and %24, so only
// a pattern's %2A and %24 match them. On the pattern side '*' stays a
// wildcard and '$' stays an anchor only as the last byte.
func canonical(s string, isURL bool) string {
	i := 0
	for ; i < len(s); i++ {
		if needsCanon(s, i, isURL) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, i, len(s)+16)
	copy(b, s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b = append(b, v)
			} else {
				b = append(b, '%', upperHex[v>>4], upperHex[v&15])
			}
			i += 2
		case c == '%', mustEscape(c), isURL && (c == '*' || c == '$'), !isURL && c == '$' && i != len(s)-1:
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// needsCanon reports whether canonical would rewrite the byte at s[i].
func needsCanon(s string, i int, isURL bool) bool {
	c := s[i]
	switch {
	case c == '%':
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return true
		}
		return s[i+1] >= 'a' || s[i+2] >= 'a' || isUnreserved(unhex(s[i+1])<<4|unhex(s[i+2]))
	case mustEscape(c):
		return true
	case c == '*':
		return isURL
	case c == '$':
		return isURL || i != len(s)-1
	}
	return false
}
