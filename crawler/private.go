package crawler

import (
	"errors"
	"net"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// privatePrefix starts the error of a URL never requested because its
// host's address is private and the crawl does not allow private
// addresses. Like a robots.txt that stayed unreachable, the origin's
// robots.txt is recorded unreachable, and a later run (the setting may
// have changed) queues such URLs again.
const privatePrefix = "private address refused: "

// refusal is a request our own private-address guard refused before
// connecting, said as what happened and which setting changes it.
type refusal struct {
	reason string
	err    error
}

func (e *refusal) Error() string { return e.reason }
func (e *refusal) Unwrap() error { return e.err }

// privateRefusal returns err as a refusal if the private-address guard
// refused it, nil otherwise. host names the request's host when the
// error does not carry the address it resolved to.
func privateRefusal(err error, host string) *refusal {
	if !errors.Is(err, fetch.ErrPrivateAddress) {
		return nil
	}
	var r *refusal
	if errors.As(err, &r) {
		return r
	}
	addr := host
	if op := (*net.OpError)(nil); errors.As(err, &op) && op.Addr != nil {
		addr = op.Addr.String()
	}
	return &refusal{reason: privatePrefix + addr + " (nothing was requested; set network.allow_private: true to crawl it)", err: err}
}

// refusePrivate settles an origin whose robots.txt request the guard
// refused: said once, no retry, its URLs failed with the reason (record
// gave its host's slot back as if never claimed: no request was sent).
func (c *robotsOutcomes) refusePrivate(tx *storage.Tx, r result, ref *refusal, now time.Time) error {
	origin := r.task.origin
	host := urlnorm.Authority(origin)
	rr := *r.robots
	rr.Err = ref
	c.robots.Unreachable(origin, rr, r.started, now)
	c.log.Warn("not crawling a private address; set network.allow_private: true to allow it",
		"host", r.task.host, "origin", origin, "reason", ref.reason)
	if err := c.failOrigin(tx, host, origin, ref.reason); err != nil {
		return err
	}
	return tx.PutRobots(origin, c.robots.Record(origin, rr, r.started))
}

// refusedUnsent is the refusal of r's request by the private-address
// guard, which refuses before anything is sent; nil if r was not refused
// so, or if a write was seen all the same: net/http sends a GET again on
// a new connection when a kept-alive one closed under its write, and the
// new dial may be the one refused (the host's name moved to a private
// address while a connection to its old one was pooled). That request
// counts as sent.
func refusedUnsent(r result) *refusal {
	switch {
	case !r.sent.IsZero():
		return nil
	case r.task.kind == taskRobots && r.robots != nil:
		return privateRefusal(r.robots.Err, r.task.host)
	case r.task.kind == taskPage || r.task.kind == taskTDMRep:
		return privateRefusal(r.err, r.task.host)
	}
	return nil
}
