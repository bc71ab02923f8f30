package fetch

import (
	"net"
	"strings"
	"sync"
)

// A crawl of thousands of hosts keeps a connection to each in the pool
// (Options.IdleConns is sized for that: a host is asked again after its
// delay). Once the crawl is done with a host, that connection only holds
// a socket open on the server until the server's keep-alive timeout or
// ours (90 s), and two goroutines here; closing 5,000 of them when the
// crawl ended took 0.3 s of its tail. CloseHost closes a host's
// connections as soon as the crawl says it is done with the host.

// conns is the Fetcher's open connections by the address they were
// dialled for (host:port, as the request's URL named it).
type conns struct {
	mu sync.Mutex
	by map[string]map[*timedConn]struct{}
}

func (s *conns) add(addr string, c *timedConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = make(map[string]map[*timedConn]struct{})
	}
	set := s.by[addr]
	if set == nil {
		set = make(map[*timedConn]struct{}, 1)
		s.by[addr] = set
	}
	set[c] = struct{}{}
	c.set, c.addr = s, addr
}

// remove forgets c (closed); a connection already taken is not there.
func (s *conns) remove(c *timedConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set := s.by[c.addr]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(s.by, c.addr)
		}
	}
}

// take removes and returns the connections dialled for host: exactly
// host when it has a port, else host on port 80 and on 443 (a URL's
// default ports).
func (s *conns) take(host string) []*timedConn {
	addrs := []string{host}
	if _, _, err := net.SplitHostPort(host); err != nil {
		name := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		addrs = []string{net.JoinHostPort(name, "80"), net.JoinHostPort(name, "443")}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*timedConn
	for _, addr := range addrs {
		for c := range s.by[addr] {
			out = append(out, c)
		}
		delete(s.by, addr)
	}
	return out
}

// open counts the connections open, for tests.
func (s *conns) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, set := range s.by {
		n += len(set)
	}
	return n
}

// CloseHost closes the connections dialled for host (a URL's host, with
// its port when the URL names one). The crawl calls it once it is done
// with the host for now, with no request to it in flight: a request
// still using one of them would fail as if the server had closed it. A
// later request to host dials again.
func (f *Fetcher) CloseHost(host string) {
	for _, c := range f.conns.take(host) {
		c.Conn.Close()
	}
}
