package cluster

import "time"

// timing derives every interval of the lease protocol from the lease TTL.
//
// A write sent at instant s is stored by the server after s, and the server
// removes it no sooner than TTL after storing it (the expiry sweep only ever
// runs late). So the key is ours at least until s+TTL, measured on any clock
// running at the server's rate. We stop using it when our own monotonic
// clock shows TTL-margin elapsed since s: margin absorbs the rate
// difference between our clock and the server's, a server clock stepped
// forward, skew between the replicas of an R3 bucket, and the time the
// engine takes to act on Lost. A quarter of the TTL (2.5 s of 10 s) is
// orders of magnitude more than NTP-disciplined clocks drift.
type timing struct {
	ttl    time.Duration
	valid  time.Duration // TTL - margin: how long an acknowledged write keeps us owner
	renew  time.Duration // renew a lease this long after its last write
	retry  time.Duration // after a failed request, try again this much later
	poll   time.Duration // look for free shards and count members this often
	op     time.Duration // timeout of one request to the server
	margin time.Duration
}

func newTiming(ttl time.Duration) timing {
	margin := ttl / 4
	poll := min(ttl/4, time.Second)
	return timing{ttl: ttl, valid: ttl - margin, renew: ttl / 4, retry: ttl / 16, poll: poll, op: ttl / 4, margin: margin}
}

// validUntil is the instant, on our clock, at which we must stop using l.
func (t timing) validUntil(l lease) time.Time { return l.sent.Add(t.valid) }

// written returns l after a write acknowledged for a request sent at sent.
func (t timing) written(l lease, rev uint64, sent time.Time) lease {
	l.rev, l.sent, l.next = rev, sent, sent.Add(t.renew)
	return l
}
