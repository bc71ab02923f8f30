package crawler

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
)

// TestRefusedUnsent: a request the private-address guard refused gives
// its host's slot back unspent only when nothing was written. net/http
// sends a GET again on a new connection when a kept-alive one closed
// under its write; when that dial is the one refused, the write counts
// (it reached the server), and the host's next request is spaced from it.
func TestRefusedUnsent(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: fetch.ErrPrivateAddress}
	wrote := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		r    result
		want bool
	}{
		{"page refused before any write", result{task: task{kind: taskPage, host: "h"}, err: refused}, true},
		{"page refused on a retry after its write", result{task: task{kind: taskPage, host: "h"}, err: refused, sent: wrote}, false},
		{"tdmrep.json refused", result{task: task{kind: taskTDMRep, host: "h"}, err: refused}, true},
		{"robots.txt refused", result{task: task{kind: taskRobots, host: "h"}, robots: &robotscache.Result{Err: refused}}, true},
		{"robots.txt refused after a write", result{task: task{kind: taskRobots, host: "h"}, robots: &robotscache.Result{Err: refused}, sent: wrote}, false},
		{"another error", result{task: task{kind: taskPage, host: "h"}, err: errors.New("connection reset by peer")}, false},
	} {
		if got := refusedUnsent(tc.r) != nil; got != tc.want {
			t.Errorf("%s: refused unsent %v, want %v", tc.name, got, tc.want)
		}
	}
}
