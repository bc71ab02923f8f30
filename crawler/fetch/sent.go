package fetch

import (
	"net"
	"sync"
	"time"
)

// Politeness counts a host's delay from when a request was sent, and the
// only moment the client can be sure of is when the write of its first
// bytes to the connection returned: they are in the kernel's hands (and,
// on loopback, in the server's socket) by then. httptrace's WroteRequest is
// not that moment: net/http calls it once the request is in the
// connection's buffer, before the transport flushes it, and under load
// the flush came milliseconds later (requests then reached test servers
// 2 to 3 ms short of a 40 ms delay, by the kernel's receive timestamps).
//
// So every connection the Fetcher dials notes when a write returns; a
// request arms its connection when it gets it (httptrace's GotConn, before
// anything is written) and reads back the time of the first write after
// that (SentMark).

// timedConn notes when the first write after arm returned. It also keeps
// the IP its peer has (RemoteIP), found once when it was dialled rather
// than parsed again for every request it carries.
type timedConn struct {
	net.Conn
	now func() time.Time
	ip  string

	mu     sync.Mutex
	armed  bool
	wrote  time.Time
	notify func(time.Time) // called once with wrote, if set
}

func (c *timedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.mu.Lock()
		var notify func(time.Time)
		var at time.Time
		if c.armed {
			c.wrote, c.armed = c.now(), false
			notify, at, c.notify = c.notify, c.wrote, nil
		}
		c.mu.Unlock()
		if notify != nil {
			notify(at)
		}
	}
	return n, err
}

func (c *timedConn) arm(notify func(time.Time)) {
	c.mu.Lock()
	c.armed, c.wrote, c.notify = true, time.Time{}, notify
	c.mu.Unlock()
}

func (c *timedConn) firstWrite() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wrote
}

// NetConn is the connection underneath, for code that unwraps.
func (c *timedConn) NetConn() net.Conn { return c.Conn }

// SentMark reads when a request's first bytes were written.
type SentMark struct{ c *timedConn }

// MarkSent arms conn (the connection httptrace's GotConn reports for a
// request, before the request is written) and returns the mark to read
// once the response came. Connections the Fetcher did not dial give a
// mark that reads zero.
func MarkSent(conn net.Conn) SentMark { return MarkSentNotify(conn, nil) }

// MarkSentNotify is MarkSent that also calls notify (if not nil) with the
// time as soon as the first write returns, on the writing goroutine: it
// must not block. It is never called for a connection the Fetcher did not
// dial.
func MarkSentNotify(conn net.Conn, notify func(time.Time)) SentMark {
	tc := timed(conn)
	if tc == nil {
		return SentMark{}
	}
	tc.arm(notify)
	return SentMark{tc}
}

// timed is the timedConn under conn, nil if the Fetcher did not dial it.
func timed(conn net.Conn) *timedConn {
	for conn != nil {
		if tc, ok := conn.(*timedConn); ok {
			return tc
		}
		u, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		conn = u.NetConn()
	}
	return nil
}

// Time is when the first write after MarkSent returned; zero if none was
// seen (nothing written yet, or a connection the Fetcher did not dial).
func (m SentMark) Time() time.Time {
	if m.c == nil {
		return time.Time{}
	}
	return m.c.firstWrite()
}
