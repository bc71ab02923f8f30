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
func scanLines(body []byte, fn func(num int, line []byte)) {
	num := 0
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		var line []byte
		if i < 0 {
			line, body = body, nil
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		if len(line) > maxLineLen {
			line = line[:maxLineLen]
		}
		num++
		fn(num, line)
	}
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
