package robots

import "bytes"

// MaxSize is how much of a robots.txt body is parsed: RFC 9309 section 2.5
// requires at least 500 KiB, and Google parses exactly that much.
const MaxSize = 500 * 1024

// maxLineLen is how many bytes of one line are kept (Google's 2083*8 byte
// line buffer less its terminating NUL). Bytes past it on the same line are
// ignored; the line itself is still used.
const maxLineLen = 2083*8 - 1

var bom = []byte{0xEF, 0xBB, 0xBF}

// limit cuts body to MaxSize bytes. When it had to cut, it also drops the
// partial last line: a truncated "Allow: /foo" would read as "Allow: /".
func limit(body []byte) []byte {
	if len(body) <= MaxSize {
		return body
	}
	if c := body[MaxSize]; c == '\n' || c == '\r' {
		return body[:MaxSize]
	}
	body = body[:MaxSize]
	if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
		return body[:i+1]
	}
	return nil
}

// skipBOM drops a leading UTF-8 byte order mark, or any leading part of one,
// as Google's parser does.
func skipBOM(body []byte) []byte {
	for i := 0; i < len(bom) && len(body) > 0 && body[0] == bom[i]; i++ {
		body = body[1:]
	}
	return body
}

// scanLines calls fn for every line of body, numbered from 1. LF, CR and
// CRLF all end a line (bufio.ScanLines does not split on a bare CR, and its
// token cap fails on long lines). A line longer than maxLineLen is cut.
// The lines are slices of body. The next LF and the next CR are each searched
// for once and remembered, so a file with only one kind of line end stays a
// single pass.
func scanLines(body []byte, fn func(num int, line []byte)) {
	lf, cr := -1, -1 // absolute positions of the next '\n' and '\r'; -1: look again
	for num, start := 1, 0; start < len(body); num++ {
		lf = nextByte(body, start, lf, '\n')
		cr = nextByte(body, start, cr, '\r')
		end := min(lf, cr)
		next := end + 1
		if end == cr && next == lf {
			next++ // CRLF
		}
		line := body[start:end]
		if len(line) > maxLineLen {
			line = line[:maxLineLen]
		}
		fn(num, line)
		start = next
	}
}

// nextByte returns the position of the first c in body at or after start,
// or len(body) when there is none; known is the answer of the previous call,
// reused while it still lies ahead.
func nextByte(body []byte, start, known int, c byte) int {
	if known >= start {
		return known
	}
	if i := bytes.IndexByte(body[start:], c); i >= 0 {
		return start + i
	}
	return len(body)
}

// splitLine returns the key and value of one robots.txt line, with the
// comment removed and white space trimmed. ok is false for lines that hold
// no record. Following Google, a missing colon is accepted when the line is
// exactly two white-space separated words ("Disallow /x").
func splitLine(line []byte) (key, value []byte, ok bool) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = trimSpace(line)
	if len(line) == 0 {
		return nil, nil, false
	}
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		return trimSpace(line[:i]), trimSpace(line[i+1:]), true
	}
	i := bytes.IndexAny(line, " \t")
	if i < 0 {
		return nil, nil, false
	}
	value = trimSpace(line[i:])
	if bytes.ContainsAny(value, " \t") {
		return nil, nil, false
	}
	return line[:i], value, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
