package freshness_test

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"time"

	"github.com/politecrawl/politecrawl/frontier/freshness"
)

// The simulated web of BenchmarkFreshness and TestFreshnessGain: pages on
// hosts whose changes follow Poisson processes, rechecked in fake time
// by a schedule, with freshness measured as the time-averaged share of
// pages whose stored copy is current.

// web is the simulated web's shape.
type web struct {
	hosts, pages int           // pages per host
	fastest      time.Duration // mean time between changes of the fastest page
	slowest      time.Duration // and of the slowest ("never" within the run)
	span         time.Duration // the run
	perDay       float64       // the rechecks each host allows a day
	delay        time.Duration // each host's politeness delay
	seed         uint64
}

// schedule is a recheck rule under test: the adaptive policy (through the
// package's own Policy, Stats and Host), the fixed one, or the multiply
// rule.
type schedule interface {
	first(h int, p *page) time.Duration
	next(h int, p *page, covered time.Duration, changed bool, at time.Time) time.Duration
}

// starter is a schedule told a host's pages before their first
// intervals: all are fetched at the start of the run, and a schedule that
// keeps a host's histogram (as the frontier's sweep does) counts them all
// before it spends the host's budget on any (else the first pages would
// see the whole budget for themselves).
type starter interface{ start(h int, pages []*page) }

// page is one simulated page.
type page struct {
	rate       float64 // changes per second
	nextChange time.Time
	checkedAt  time.Time
	due        time.Time
	interval   time.Duration // the interval it is scheduled at (multiply rule)
	stats      freshness.Stats
	inHist     bool
	histRate   float64
	host, idx  int
}

// outcome is what a run measured.
type outcome struct {
	freshness float64 // time-averaged share of current copies
	requests  int     // rechecks made
	allowed   float64 // rechecks the budget allowed
}

// pages makes the web's pages, the same for every schedule of one seed.
func (w web) makePages() [][]*page {
	rng := rand.New(rand.NewPCG(w.seed, 1))
	lo, hi := math.Log(1/w.slowest.Seconds()), math.Log(1/w.fastest.Seconds())
	out := make([][]*page, w.hosts)
	for h := range out {
		for i := range w.pages {
			out[h] = append(out[h], &page{rate: math.Exp(lo + rng.Float64()*(hi-lo)), host: h, idx: i})
		}
	}
	return out
}

// run simulates the web under s: every page fetched at the start, then
// each host's rechecks in due order, no two closer than its delay.
func (w web) run(s schedule) outcome {
	rng := rand.New(rand.NewPCG(w.seed, 2))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(w.span)
	exp := func(rate float64, from time.Time) time.Time {
		// Past the end of the run, a change is no change: capped there,
		// far from time.Duration's bounds.
		secs := min(rng.ExpFloat64()/rate, 2*w.span.Seconds())
		return from.Add(time.Duration(secs * float64(time.Second)))
	}
	var o outcome
	var fresh float64
	for h, pages := range w.makePages() {
		if st, ok := s.(starter); ok {
			st.start(h, pages)
		}
		q := &dueHeap{}
		for _, p := range pages {
			p.checkedAt, p.nextChange = start, exp(p.rate, start)
			p.due = start.Add(s.first(h, p))
			heap.Push(q, p)
		}
		var last time.Time
		for q.Len() > 0 {
			p := heap.Pop(q).(*page)
			at := p.due
			if !last.IsZero() && at.Sub(last) < w.delay {
				at = last.Add(w.delay)
			}
			if at.After(end) {
				fresh += minTime(p.nextChange, end).Sub(p.checkedAt).Seconds()
				continue
			}
			last = at
			o.requests++
			fresh += minTime(p.nextChange, at).Sub(p.checkedAt).Seconds()
			changed := !p.nextChange.After(at)
			if changed {
				p.nextChange = exp(p.rate, at)
			}
			covered := at.Sub(p.checkedAt)
			p.checkedAt = at
			p.due = at.Add(s.next(h, p, covered, changed, at))
			heap.Push(q, p)
		}
	}
	o.freshness = fresh / (w.span.Seconds() * float64(w.hosts*w.pages))
	o.allowed = w.perDay * w.span.Hours() / 24 * float64(w.hosts)
	return o
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

type dueHeap []*page

func (q dueHeap) Len() int { return len(q) }
func (q dueHeap) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].idx < q[j].idx
}
func (q dueHeap) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *dueHeap) Push(x any)   { *q = append(*q, x.(*page)) }
func (q *dueHeap) Pop() (x any) { old := *q; x = old[len(old)-1]; *q = old[:len(old)-1]; return x }

// adaptive is the crawler's adaptive policy: the page's Stats, its host's
// histogram and threshold, and Policy.Next, as the frontier uses them.
type adaptive struct {
	p     freshness.Policy
	hosts []freshness.Host
	delay time.Duration
}

func newAdaptive(w web, p freshness.Policy) *adaptive {
	p.Adaptive = true
	p.Share = w.perDay * w.delay.Seconds() / 86400
	return &adaptive{p: p, hosts: make([]freshness.Host, w.hosts), delay: w.delay}
}

func (a *adaptive) start(h int, pages []*page) {
	prior := a.p.Prior("", time.Time{}, time.Time{})
	for _, pg := range pages {
		pg.histRate, pg.inHist = prior, true
		a.hosts[h].Move(0, false, prior)
	}
}

func (a *adaptive) first(h int, pg *page) time.Duration {
	return a.schedule(h, pg, time.Time{})
}

func (a *adaptive) next(h int, pg *page, covered time.Duration, changed bool, at time.Time) time.Duration {
	pg.stats = pg.stats.Observe(covered, changed)
	return a.schedule(h, pg, at)
}

func (a *adaptive) schedule(h int, pg *page, at time.Time) time.Duration {
	host := &a.hosts[h]
	prior := a.p.Prior("", time.Time{}, at)
	rate := pg.stats.RateOr(prior)
	host.Move(pg.histRate, pg.inHist, rate)
	pg.histRate, pg.inHist = rate, true
	mu := host.Mu(a.p, host.Budget(a.p, a.delay, at))
	return a.p.Next(pg.stats, prior, mu)
}

// fixed checks every page every interval.
type fixed time.Duration

func (f fixed) first(int, *page) time.Duration { return time.Duration(f) }
func (f fixed) next(int, *page, time.Duration, bool, time.Time) time.Duration {
	return time.Duration(f)
}

// multiply is Nutch's AdaptiveFetchSchedule: ×1.4 when unchanged, ×0.8
// when changed, within [min, max], from a start interval.
type multiply struct{ start, min, max time.Duration }

func (m multiply) first(_ int, pg *page) time.Duration {
	pg.interval = m.start
	return m.start
}

func (m multiply) next(_ int, pg *page, _ time.Duration, changed bool, _ time.Time) time.Duration {
	f := 1.4
	if changed {
		f = 0.8
	}
	pg.interval = min(max(time.Duration(float64(pg.interval)*f), m.min), m.max)
	return pg.interval
}

// shortest is the shortest interval d from lo to hi (within 1%) at which
// the schedule mk(d) makes at most requests rechecks, and what it
// measured: a longer interval makes fewer requests and keeps pages less
// fresh, so that is the schedule's best at that many requests. Ok false
// when even hi makes more.
func (w web) shortest(requests int, lo, hi time.Duration, mk func(time.Duration) schedule) (d time.Duration, o outcome, ok bool) {
	if o = w.run(mk(hi)); o.requests > requests {
		return hi, o, false
	}
	d = hi
	if l := w.run(mk(lo)); l.requests <= requests {
		return lo, l, true
	}
	for float64(hi)/float64(lo) > 1.01 {
		mid := time.Duration(math.Sqrt(float64(lo) * float64(hi)))
		if m := w.run(mk(mid)); m.requests <= requests {
			hi, d, o = mid, mid, m
		} else {
			lo = mid
		}
	}
	return d, o, true
}

// bestFixed is the best fixed interval that makes at most requests
// rechecks.
func (w web) bestFixed(requests int, lo, hi time.Duration) (time.Duration, outcome) {
	d, o, _ := w.shortest(requests, lo, hi, func(d time.Duration) schedule { return fixed(d) })
	return d, o
}

// multiplyAt is the multiply rule making at most requests rechecks: its
// minimum interval (the one a page changing at every check shrinks to,
// and which bounds its spend) searched from lo to max as the fixed
// interval is; its start interval is start or that minimum, whichever is
// longer.
func (w web) multiplyAt(requests int, start, lo, max time.Duration) (time.Duration, outcome) {
	d, o, _ := w.shortest(requests, lo, max, func(d time.Duration) schedule {
		return multiply{start: maxDur(start, d), min: d, max: max}
	})
	return d, o
}

func maxDur(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// optimal is Cho and Garcia-Molina's allocation with every page's true
// rate known: what no schedule that must learn the rates can beat (up to
// the histogram's rounding). It bounds the gain the web allows.
type optimal struct{ a *adaptive }

func (o optimal) start(h int, pages []*page) {
	for _, pg := range pages {
		pg.histRate, pg.inHist = pg.rate, true
		o.a.hosts[h].Move(0, false, pg.rate)
	}
}

func (o optimal) first(h int, pg *page) time.Duration { return o.schedule(h, pg) }
func (o optimal) next(h int, pg *page, _ time.Duration, _ bool, _ time.Time) time.Duration {
	return o.schedule(h, pg)
}

func (o optimal) schedule(h int, pg *page) time.Duration {
	host := &o.a.hosts[h]
	host.Move(pg.histRate, pg.inHist, pg.rate)
	pg.histRate, pg.inHist = pg.rate, true
	return o.a.p.Optimal(pg.rate, host.Mu(o.a.p, host.Budget(o.a.p, o.a.delay, time.Time{})))
}
