//go:build linux

package crawltest

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// stampListener turns on the kernel's receive timestamps (SO_TIMESTAMPNS)
// on every connection it accepts, so that a host records when a request
// arrived, not when its handler got to run: with many servers and a busy
// crawler in one process (or two processes on two cores), handlers ran up
// to tens of milliseconds late, by different amounts for consecutive
// requests, and gaps the client had spaced correctly looked short.
type stampListener struct{ net.Listener }

func (l stampListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil // handler times, then
	}
	return &stampConn{TCPConn: tc, rc: rc}, nil
}

// stampConn reads with recvmsg to get each read's kernel receive time.
// Requests on one connection come one at a time (a crawler does not
// pipeline), so the first read after the last request was taken holds the
// next request's first bytes.
type stampConn struct {
	*net.TCPConn
	rc  syscall.RawConn
	oob [128]byte // reads do not overlap (net/http reads a conn from one goroutine at a time)

	mu      sync.Mutex
	pending time.Time // receive time of the first bytes not taken yet
}

func (c *stampConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n, oobn int
	var rerr error
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, c.oob[:], 0)
			if rerr != syscall.EINTR {
				return rerr != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil: // a deadline, or the conn closed
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", rerr)}
	case n == 0:
		return 0, io.EOF
	}
	if t, ok := receiveTime(c.oob[:oobn]); ok {
		c.mu.Lock()
		if c.pending.IsZero() {
			c.pending = t
		}
		c.mu.Unlock()
	}
	return n, nil
}

// take returns the receive time of the bytes read since the last take
// (zero if unknown) and starts over.
func (c *stampConn) take() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.pending
	c.pending = time.Time{}
	return t
}

// receiveTime finds the SO_TIMESTAMPNS control message.
func receiveTime(oob []byte) (time.Time, bool) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}, false
	}
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SO_TIMESTAMPNS &&
			len(m.Data) >= int(unsafe.Sizeof(syscall.Timespec{})) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&m.Data[0]))
			return time.Unix(0, ts.Nano()), true
		}
	}
	return time.Time{}, false
}

// arrival is when the request being served on conn arrived, if known.
func arrival(conn net.Conn) time.Time {
	if c, ok := conn.(*stampConn); ok {
		return c.take()
	}
	return time.Time{}
}

func wrapListener(l net.Listener) net.Listener { return stampListener{l} }
