package fetch

import (
	"context"
	"crypto/tls"
	"net"
	"net/http/httptrace"
	"net/netip"
	"sync/atomic"
	"time"
)

// Trace follows one request at the connection level: when its first bytes
// were written (politeness counts from there, not from when it was asked
// for: connecting may take a while) and which IP address the connection
// went to (hosts that share one are limited together). Make one per
// request with NewTrace; read it once the request is over.
type Trace struct {
	hooks    httptrace.ClientTrace // in the Trace: one allocation, not two
	now      func() time.Time
	notify   func(time.Time) // nil: nobody waits to hear when it went out
	sent     atomic.Int64    // WroteRequest, Unix ns
	first    atomic.Int64    // GotFirstResponseByte, Unix ns
	ip       atomic.Pointer[string]
	conn     atomic.Pointer[timedConn] // armed by GotConn; nil if not one the Fetcher dialled
	notified atomic.Bool               // one note per request, whatever the connections
}

// NewTrace returns ctx with a client trace for one request. If notify is
// not nil it is called once, as soon as it is known, with when the
// request went out (see WithTrace's GotConn for when that is).
func NewTrace(ctx context.Context, now func() time.Time, notify func(time.Time)) (context.Context, *Trace) {
	t := &Trace{now: now, notify: notify}
	t.hooks = httptrace.ClientTrace{
		GotConn:              t.gotConn,
		GotFirstResponseByte: t.gotFirstByte,
		// WroteRequest comes once an HTTP/1.1 request is in the
		// connection's buffer, before the flush (see Sent).
		WroteRequest: t.wroteRequest,
	}
	return httptrace.WithClientTrace(ctx, &t.hooks), t
}

func (t *Trace) wroteRequest(httptrace.WroteRequestInfo) {
	t.sent.CompareAndSwap(0, t.now().UnixNano())
}

func (t *Trace) note(at time.Time) {
	if t.notify != nil && t.notified.CompareAndSwap(false, true) {
		t.notify(at)
	}
}

// gotConn notes the connection's IP and arms the mark of its first
// write. The note of the write is given at that write only on a fresh
// HTTP/1.1 connection: a kept-alive one the server has closed takes the
// write and fails the read, and net/http sends the request again on a new
// connection, later; over HTTP/2 the first write may be a frame of the
// transport's own. There the note waits for the first byte of the answer
// (gotFirstByte), with the time of the write that answer is to.
func (t *Trace) gotConn(info httptrace.GotConnInfo) {
	tc := timed(info.Conn)
	if tc != nil {
		t.ip.Store(&tc.ip) // found at the dial, never changed after
	} else {
		s := remoteIP(info.Conn)
		t.ip.Store(&s)
	}
	var notify func(time.Time)
	if t.notify != nil && !info.Reused && !isHTTP2(info.Conn) {
		notify = t.note
	}
	if tc != nil {
		tc.arm(notify)
	}
	t.conn.Store(tc)
}

// mark is the write mark of the connection GotConn armed (zero if none).
func (t *Trace) mark() SentMark { return SentMark{t.conn.Load()} }

func (t *Trace) gotFirstByte() {
	t.first.CompareAndSwap(0, t.now().UnixNano())
	if at := t.mark().Time(); !at.IsZero() {
		t.note(at)
	}
}

// Sent is when the request was written to its connection; zero if never.
// It is the later of two marks: over HTTP/1.1 the write returns after
// WroteRequest; over HTTP/2 the first write after GotConn may be a frame
// of the transport's own (a SETTINGS or PING answer) and WroteRequest
// comes after the headers' flush; a retry on a connection that wrote
// nothing leaves only WroteRequest.
func (t *Trace) Sent() time.Time {
	var sent time.Time
	if ns := t.sent.Load(); ns != 0 {
		sent = time.Unix(0, ns)
	}
	if at := t.mark().Time(); at.After(sent) {
		sent = at
	}
	return sent
}

// TTFB is the request's time to first byte: from when it was written
// (Sent) to the first byte of the answer; 0 if either is unknown.
func (t *Trace) TTFB() time.Duration {
	ns, sent := t.first.Load(), t.Sent()
	if ns == 0 || sent.IsZero() {
		return 0
	}
	return max(time.Unix(0, ns).Sub(sent), 0)
}

// IP is the address the request's connection went to, "" if none.
func (t *Trace) IP() string {
	if p := t.ip.Load(); p != nil {
		return *p
	}
	return ""
}

// RemoteIP is the IP address a connection goes to, "" when it has none
// (an in-memory test network). For a connection the Fetcher dialled it is
// the one found when it was dialled (a connection's peer does not change).
func RemoteIP(conn net.Conn) string {
	if tc := timed(conn); tc != nil {
		return tc.ip
	}
	return remoteIP(conn)
}

func remoteIP(conn net.Conn) string {
	if conn == nil {
		return ""
	}
	s := ""
	if host, _, err := net.SplitHostPort(conn.RemoteAddr().String()); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			s = a.Unmap().String()
		}
	}
	return s
}

// isHTTP2 reports whether conn speaks HTTP/2 (negotiated over TLS).
func isHTTP2(conn net.Conn) bool {
	tc, ok := conn.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}
