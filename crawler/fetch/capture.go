package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
)

// Capture collects the raw bytes of one HTTP exchange as they cross the
// connection: what was written (request line, headers, body) and what was
// read (status line, headers and body exactly as the server sent them,
// chunk framing and Content-Encoding included). It is filled only by a
// Fetcher whose Options.Capture is set, for a request whose context
// carries it (WithCapture). Safe for concurrent use.
type Capture struct {
	mu        sync.Mutex
	req, resp bytes.Buffer
	limit     int
	overflow  bool
	remoteIP  string
	finished  bool
}

// NewCapture returns an empty Capture.
func NewCapture() *Capture { return &Capture{} }

type captureKey struct{}

// WithCapture returns a context that makes the Fetcher record the
// exchange of the request made with it into c.
func WithCapture(ctx context.Context, c *Capture) context.Context {
	return context.WithValue(ctx, captureKey{}, c)
}

// Finish stops recording and returns the bytes written, the bytes read,
// the server's IP address, and whether the response was longer than the
// capture limit (Options.MaxBody plus 1 MiB for the headers), in which
// case it is cut there. Call it once the response body is closed.
func (c *Capture) Finish() (request, response []byte, ip string, cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finished = true
	return c.req.Bytes(), c.resp.Bytes(), c.remoteIP, c.overflow
}

// start (re)starts recording on a connection; a retried request on a
// new connection starts afresh.
func (c *Capture) start(remote net.Addr, limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.req.Reset()
	c.resp.Reset()
	c.limit, c.overflow, c.finished = limit, false, false
	c.remoteIP = ""
	if remote != nil {
		if host, _, err := net.SplitHostPort(remote.String()); err == nil {
			c.remoteIP = host
		}
	}
}

func (c *Capture) add(buf *bytes.Buffer, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return
	}
	if room := c.limit - buf.Len(); len(p) > room {
		p, c.overflow = p[:max(room, 0)], true
	}
	buf.Write(p)
}

// recConn copies what crosses a connection into the Capture of the
// request using it (one at a time on an HTTP/1.1 connection).
type recConn struct {
	net.Conn
	mu  sync.Mutex
	cur *Capture
}

// NetConn is the connection underneath, for code that unwraps.
func (c *recConn) NetConn() net.Conn { return c.Conn }

func (c *recConn) attach(capt *Capture) {
	c.mu.Lock()
	c.cur = capt
	c.mu.Unlock()
}

func (c *recConn) capture() *Capture {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if capt := c.capture(); n > 0 && capt != nil {
		capt.add(&capt.resp, p[:n])
	}
	return n, err
}

func (c *recConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if capt := c.capture(); n > 0 && capt != nil {
		capt.add(&capt.req, p[:n])
	}
	return n, err
}

// recording makes tr hand out recording connections: plain ones wrapped
// after dialling, TLS ones wrapped above the TLS layer (so the plaintext
// is recorded), and HTTP/1.1 only, whose bytes on the wire are the
// messages themselves.
func recording(tr *http.Transport, dial func(ctx context.Context, network, addr string) (net.Conn, error), opts Options) {
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &recConn{Conn: conn}, nil
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(addr)
		cfg := &tls.Config{ServerName: host, NextProtos: []string{"http/1.1"}}
		if opts.TLSConfig != nil {
			cfg = opts.TLSConfig.Clone()
			cfg.ServerName, cfg.NextProtos = host, []string{"http/1.1"}
		}
		tc := tls.Client(raw, cfg)
		hctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
		defer cancel()
		if err := tc.HandshakeContext(hctx); err != nil {
			raw.Close()
			return nil, fmt.Errorf("tls handshake with %s: %w", addr, err)
		}
		return &recConn{Conn: tc}, nil
	}
	tr.ForceAttemptHTTP2 = false
	tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
}

// traceCapture attaches the request's Capture, if any, to the connection
// the transport picks for it.
func (f *Fetcher) traceCapture(req *http.Request) *http.Request {
	capt, _ := req.Context().Value(captureKey{}).(*Capture)
	if capt == nil || !f.opts.Capture {
		return req
	}
	limit := int(f.opts.MaxBody) + 1<<20
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if rc, ok := info.Conn.(*recConn); ok {
				capt.start(rc.RemoteAddr(), limit)
				rc.attach(capt)
			}
		},
	})
	return req.WithContext(ctx)
}
