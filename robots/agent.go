package robots

// isTokenByte reports whether c may appear in a product token: RFC 9309
// limits them to [A-Za-z_-].
func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

// groupAgent reads the value of a user-agent line the way Google does: a
// value that is "*" alone or followed by white space names the global group;
// otherwise the leading run of token bytes is the agent ("Googlebot/2.1" and
// "Googlebot Images" both name googlebot), returned as a slice of v. An
// empty token names no agent.
func groupAgent(v []byte) (token []byte, global bool) {
	if len(v) > 0 && v[0] == '*' && (len(v) == 1 || isSpace(v[1])) {
		return nil, true
	}
	n := 0
	for n < len(v) && isTokenByte(v[n]) {
		n++
	}
	return v[:n], false
}

// productToken returns the product token of the agent a caller asks about.
// It may be a bare token ("politecrawl") or a whole User-Agent header
// ("politecrawl/1.2 (+https://example.org/bot)"), whose first product is
// "token[/version]" optionally followed by more products or comments. A
// string that is neither, such as "Foo Bar", has no product token and is
// matched only by the "*" group, as Google's matcher treats it.
func productToken(agent string) string {
	for len(agent) > 0 && isSpace(agent[0]) {
		agent = agent[1:]
	}
	n := 0
	for n < len(agent) && isTokenByte(agent[n]) {
		n++
	}
	rest := agent[n:]
	for len(rest) > 0 && isSpace(rest[len(rest)-1]) {
		rest = rest[:len(rest)-1]
	}
	switch {
	case rest == "" || rest[0] == '/':
		return agent[:n]
	}
	i := 0
	for i < len(rest) && isSpace(rest[i]) {
		i++
	}
	if i > 0 && i < len(rest) && rest[i] == '(' {
		return agent[:n]
	}
	return ""
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
