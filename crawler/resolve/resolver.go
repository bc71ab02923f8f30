package resolve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configure a Resolver. Zero values take the defaults shown.
type Options struct {
	// Lookup returns host's addresses (nil: the system resolver's
	// LookupNetIP). Tests map names to addresses with it.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	TTL    time.Duration // how long an answer is used: 1m
	// Timeout bounds one lookup: 10s.
	Timeout time.Duration
	// Workers is how many lookups run at once: 8.
	Workers int
	Now     func() time.Time // nil: time.Now
}

// Answer is the address a host's requests are to connect to, until Until
// (zero: for good), or Err, why there is none (a *net.DNSError when the
// lookup failed).
type Answer struct {
	Host string // as asked: host or host:port
	IP   string
	// Others are the name's further addresses, in the system's order, at
	// most MaxOthers: a connection is tried there when IP refuses it
	// (round-robin DNS with one server down), as Go's own dialer would.
	Others []string
	Err    error
	Until  time.Time
}

// MaxOthers bounds Answer.Others: each costs a connect timeout at most
// when every address is down.
const MaxOthers = 3

// Resolver looks hosts up on its own goroutines. Ask and Answers are for
// one goroutine, the crawl's coordinator; Start and Stop bracket them.
type Resolver struct {
	opts    Options
	in      chan string
	out     chan Answer
	pending int // asked, answer not taken
	wg      sync.WaitGroup
	cancel  context.CancelFunc
}

// queueMax is how many names may wait for a lookup goroutine.
const queueMax = 256

// New returns a Resolver; Start starts its goroutines.
func New(o Options) *Resolver {
	if o.Lookup == nil {
		o.Lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if o.TTL <= 0 {
		o.TTL = time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	// Room for an answer to every name asked, so a lookup goroutine
	// never waits to hand one over.
	return &Resolver{opts: o, in: make(chan string, queueMax), out: make(chan Answer, queueMax+o.Workers)}
}

// Start starts the lookup goroutines; they run until Stop or ctx ends.
func (r *Resolver) Start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	for range r.opts.Workers {
		r.wg.Go(func() {
			for host := range r.in {
				if ctx.Err() != nil {
					continue // drain: Stop is waiting
				}
				r.out <- r.Resolve(ctx, host)
			}
		})
	}
}

// Stop cancels the lookups under way and waits for the goroutines. Answers
// not taken are dropped.
func (r *Resolver) Stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	close(r.in)
	r.wg.Wait()
	r.cancel = nil
}

// Room is how many more names Ask takes now.
func (r *Resolver) Room() int { return queueMax - r.pending }

// Pending is how many names were asked whose answers were not taken.
func (r *Resolver) Pending() int { return r.pending }

// Ask queues host for a lookup; it reports false, asking nothing, when
// Room is 0.
func (r *Resolver) Ask(host string) bool {
	if r.pending >= queueMax {
		return false
	}
	r.pending++
	r.in <- host
	return true
}

// Answers delivers the lookups' answers; call Took for each one taken.
func (r *Resolver) Answers() <-chan Answer { return r.out }

// Took counts an answer taken from Answers.
func (r *Resolver) Took() { r.pending-- }

// Resolve looks host (host or host:port) up at once, on the caller's
// goroutine.
func (r *Resolver) Resolve(ctx context.Context, host string) Answer {
	a := Answer{Host: host}
	name := Hostname(host)
	if ip, err := netip.ParseAddr(name); err == nil {
		a.IP = ip.Unmap().String()
		return a
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	ips, err := r.opts.Lookup(ctx, name)
	if err == nil && len(ips) == 0 {
		err = errors.New("no address")
	}
	if err != nil {
		var dnsErr *net.DNSError
		if !errors.As(err, &dnsErr) {
			err = &net.DNSError{Err: err.Error(), Name: name, IsTimeout: errors.Is(err, context.DeadlineExceeded)}
		}
		a.Err = fmt.Errorf("look up %s: %w", name, err)
		return a
	}
	a.IP, a.Until = ips[0].Unmap().String(), r.opts.Now().Add(r.opts.TTL)
	for _, ip := range ips[1:] {
		if s := ip.Unmap().String(); s != a.IP && !slices.Contains(a.Others, s) && len(a.Others) < MaxOthers {
			a.Others = append(a.Others, s)
		}
	}
	return a
}

// Hostname is host without its port and brackets.
func Hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}
