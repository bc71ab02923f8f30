package urlnorm

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
	}
	return c - 'a' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// mustEscape: bytes that may not appear raw in a URL.
func mustEscape(c byte) bool {
	if c <= ' ' || c >= 0x7F {
		return true
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}', '#':
		return true
	}
	return false
}

// canonicalEscapes upper-cases %xx hex, decodes escapes of unreserved
// characters, encodes a '%' that starts no escape and every byte that may
// not appear raw. Reserved characters, escaped or not, are left alone: %2F
// is not "/".
func canonicalEscapes(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b = grow(b, s, i)
				b = append(b, v)
			} else if s[i+1] >= 'a' || s[i+2] >= 'a' {
				b = grow(b, s, i)
				b = append(b, '%', upperHex[v>>4], upperHex[v&15])
			} else if b != nil {
				b = append(b, s[i:i+3]...)
			}
			i += 2
		case c == '%' || mustEscape(c):
			b = grow(b, s, i)
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		default:
			if b != nil {
				b = append(b, c)
			}
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

// grow starts the output buffer lazily with the unchanged prefix s[:i].
func grow(b []byte, s string, i int) []byte {
	if b != nil {
		return b
	}
	b = make([]byte, i, len(s)+16)
	copy(b, s[:i])
	return b
}
