//go:build !linux

package crawltest

import (
	"net"
	"time"
)

// Elsewhere than Linux a request's arrival is its handler's start.

func arrival(net.Conn) time.Time { return time.Time{} }

func wrapListener(l net.Listener) net.Listener { return l }
