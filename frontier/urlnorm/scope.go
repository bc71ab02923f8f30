package urlnorm

import "strings"

// Scope is the set of authorities (host or host:port) a crawl may visit.
// An entry without a port admits that host on any port. The zero Scope
// admits nothing; build one with NewScope.
type Scope struct {
	exact map[string]bool // host:port or bare host as given
}

// NewScope builds a scope from host or host:port entries; they are
// normalised the same way URLs are.
func NewScope(hosts []string) (Scope, error) {
	s := Scope{exact: map[string]bool{}}
	for _, h := range hosts {
		u, err := Parse("http://" + strings.TrimSpace(h) + "/")
		if err != nil {
			return Scope{}, err
		}
		a := u.Host
		if u.Port() == "" && strings.HasSuffix(strings.TrimSpace(h), ":80") {
			a += ":80"
		}
		s.exact[a] = true
	}
	return s, nil
}

// Contains reports whether the normal URL lies inside the scope.
func (s Scope) Contains(normal string) bool {
	a := Authority(normal)
	if s.exact[a] {
		return true
	}
	if i := strings.LastIndexByte(a, ':'); i >= 0 && !strings.HasSuffix(a, "]") {
		return s.exact[a[:i]]
	}
	return false
}

// Hosts lists the scope's entries, for logs.
func (s Scope) Hosts() []string {
	out := make([]string, 0, len(s.exact))
	for h := range s.exact {
		out = append(out, h)
	}
	return out
}
