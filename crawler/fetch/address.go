package fetch

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"
)

// A crawl looks a host's name up before its first request, to know which
// server (IP group) the request will reach and hold it to that server's
// limits. The request must then reach exactly that address: a second
// lookup, inside the dialer, could answer with another one (round-robin
// DNS, a CDN). WithAddress pins it: the Fetcher's dialer connects to the
// address given instead of looking the name up again. TLS and the Host
// header still use the name in the URL.

// Address is where requests to one host are to connect: IP, or, when the
// lookup failed, Err, which such a request fails with before connecting.
// When IP refuses the connection (or does not answer within the connect
// timeout), Others are tried in order, as Go's own dialer tries every
// address of a name: one server down behind round-robin DNS would
// otherwise fail every request to the host until its answer expired. The
// connection's IP (Trace.IP) is the address that answered, and the
// frontier moves the host to that address's group.
type Address struct {
	Host   string // the host name (a port, if any, is ignored)
	IP     string
	Others []string
	Err    error
}

type addressKey struct{}

// WithAddress returns ctx with a pinned address for requests to a.Host
// (see Address). Connections to other hosts are not affected. A custom
// Options.DialContext is given the address as the request named it (it
// replaces the dialer and its lookup: a test network routes by name), but
// a.Err is returned all the same.
func WithAddress(ctx context.Context, a Address) context.Context {
	return context.WithValue(ctx, addressKey{}, a)
}

// pinned returns the addresses to dial for addr (host:port) under ctx, in
// order: the pinned IP and its others with addr's port, or addr itself
// when nothing is pinned for its host; err is the pinned lookup error, if
// any.
func pinned(ctx context.Context, network, addr string, custom bool) ([]string, error) {
	a, ok := ctx.Value(addressKey{}).(Address)
	if !ok {
		return []string{addr}, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || !strings.EqualFold(host, hostname(a.Host)) {
		return []string{addr}, nil
	}
	if a.Err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: a.Err}
	}
	if a.IP == "" || custom {
		return []string{addr}, nil
	}
	out := make([]string, 0, 1+len(a.Others))
	for _, ip := range append([]string{a.IP}, a.Others...) {
		out = append(out, net.JoinHostPort(ip, port))
	}
	return out, nil
}

// dialFirst connects to the first of addrs that accepts, in order, within
// budget for them all (0: no bound of its own), and returns the first
// address's error when none does; the private-address refusal only when
// every address was refused so, since that refusal gives the host up at
// once. As Go's own dialer does, each address gets an equal share of
// what is left of the budget, at least 2 s (or all that is left): four
// silent addresses take one connect timeout, not four. A cancelled ctx
// ends it at once.
func dialFirst(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), network string, addrs []string, budget time.Duration) (net.Conn, error) {
	var first error
	var deadline time.Time
	if budget > 0 && len(addrs) > 1 {
		deadline = time.Now().Add(budget) // the dialer's own clock: connect deadlines are wall time
	}
	for i, a := range addrs {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			share := max(left/time.Duration(len(addrs)-i), min(2*time.Second, left))
			actx, cancel = context.WithTimeout(ctx, share)
		}
		c, err := dial(actx, network, a)
		cancel()
		if err == nil {
			return c, nil
		}
		if first == nil || errors.Is(first, ErrPrivateAddress) && !errors.Is(err, ErrPrivateAddress) {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if first == nil {
		first = &net.OpError{Op: "dial", Net: network, Err: context.DeadlineExceeded}
	}
	return nil, first
}

func hostname(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}
