package crawltest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// PipeNet is an in-memory network of net.Pipe connections. Inside a
// testing/synctest bubble its reads and writes block durably, so the fake
// clock advances only when the whole crawl waits: timing tests then see
// exact, load-independent gaps.
type PipeNet struct {
	mu    sync.Mutex
	ls    map[string]*pipeListener
	ips   map[string]net.IP
	names map[string]netip.Addr // addresses Lookup made up for hosts without SetIP
}

// NewPipeNet returns an empty network.
func NewPipeNet() *PipeNet {
	return &PipeNet{ls: map[string]*pipeListener{}, ips: map[string]net.IP{}, names: map[string]netip.Addr{}}
}

// Lookup is the network's name service, a crawler.Config.Lookup: a host's
// address is the one SetIP gave it, else one of its own in 198.18.0.0/15
// (the benchmarking range), made up the first time it is asked. Unknown
// hosts are not found.
func (n *PipeNet) Lookup(_ context.Context, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr := host + ":80"
	if ip := n.ips[addr]; ip != nil {
		a, _ := netip.AddrFromSlice(ip)
		return []netip.Addr{a.Unmap()}, nil
	}
	if n.ls[addr] == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	a, ok := n.names[host]
	if !ok {
		i := len(n.names) + 1
		a = netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)})
		n.names[host] = a
	}
	return []netip.Addr{a}, nil
}

// SetIP makes connections to host (as given to AddPipeHost) report ip as
// their remote address, as a TCP connection to a server at ip would: for
// tests of per-IP politeness.
func (n *PipeNet) SetIP(host, ip string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ips[host+":80"] = net.ParseIP(ip)
}

// ipConn is a pipe end that reports a TCP remote address.
type ipConn struct {
	net.Conn
	remote *net.TCPAddr
}

func (c ipConn) RemoteAddr() net.Addr { return c.remote }

// Dial connects to the listener at addr; it is a fetch.Options.DialContext.
func (n *PipeNet) Dial(ctx context.Context, _, addr string) (net.Conn, error) {
	n.mu.Lock()
	l, ip := n.ls[addr], n.ips[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, fmt.Errorf("pipenet: connection refused: %s", addr)
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		if ip != nil {
			return ipConn{client, &net.TCPAddr{IP: ip, Port: 80}}, nil
		}
		return client, nil
	case <-l.done:
		return nil, fmt.Errorf("pipenet: %s closed", addr)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeListener struct {
	addr  pipeAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return l.addr }

// AddPipeHost serves pages as http://host/ (port 80) on the pipe network,
// with the same logging as AddHost. Close the web inside the bubble that
// created it.
func (w *Web) AddPipeHost(name string, n *PipeNet, host string, pages map[string]*Page) *Host {
	addr := host + ":80"
	l := &pipeListener{addr: pipeAddr(addr), conns: make(chan net.Conn), done: make(chan struct{})}
	n.mu.Lock()
	n.ls[addr] = l
	n.mu.Unlock()
	h := &Host{Name: name, web: w, pages: pages, served: map[string]int{}, base: "http://" + host}
	srv := &http.Server{Handler: http.HandlerFunc(h.serve)}
	h.closeFn = func() {
		srv.Close()
		l.Close()
	}
	go srv.Serve(l)
	w.mu.Lock()
	w.hosts[name] = h
	w.order = append(w.order, name)
	w.mu.Unlock()
	return h
}
