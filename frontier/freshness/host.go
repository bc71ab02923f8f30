package freshness

import (
	"math"
	"time"
)

// Buckets is the size of a Host's rate histogram: bucket 0 holds pages
// never seen to change, bucket i > 0 rates around 2^(minLog2+(i−1)/2) per
// second, half an octave apart: from one change in 34 years to one a
// minute.
const Buckets = 49

const minLog2 = -30.0

// bucketOf is the bucket of a rate, per second.
func bucketOf(rate float64) int {
	if rate <= 0 || math.IsNaN(rate) {
		return 0
	}
	i := int(math.Round((math.Log2(rate)-minLog2)*2)) + 1
	return min(max(i, 1), Buckets-1)
}

// bucketRate is the rate bucket i stands for.
func bucketRate(i int) float64 {
	if i == 0 {
		return 0
	}
	return math.Exp2(minLog2 + float64(i-1)/2)
}

// newTau is the time constant of a host's new-page rate: about a day.
const newTau = 24 * time.Hour

// Host is one host's part of the adaptive schedule: the histogram of its
// scheduled pages' rates, and how many new pages it fetches a day. Its
// budget and threshold follow from them (Budget, Mu). The zero value is
// a host with no pages. Not safe for concurrent use.
type Host struct {
	Counts  [Buckets]uint32
	NewRate float64   // new pages per second, decayed to NewAt
	NewAt   time.Time // when NewRate was last updated

	// The threshold last solved, for the budget it was solved for; it
	// is solved again when the histogram moved by more than a 64th
	// of its pages since, or the budget by more than 1%.
	mu, muBudget float64
	moved        int
	solved       bool
}

// Move takes a page from the bucket of rate from (ok false: it was not
// in the histogram) to that of rate to.
func (h *Host) Move(from float64, had bool, to float64) {
	if had {
		if i := bucketOf(from); h.Counts[i] > 0 {
			h.Counts[i]--
		}
	}
	h.Counts[bucketOf(to)]++
	if !had || bucketOf(from) != bucketOf(to) {
		h.moved++
	}
}

// Pages is how many pages the histogram holds.
func (h *Host) Pages() int {
	n := 0
	for _, c := range h.Counts {
		n += int(c)
	}
	return n
}

// NoteNew counts a new page fetched at now.
func (h *Host) NoteNew(now time.Time) {
	h.NewRate = h.newRate(now) + 1/newTau.Seconds()
	h.NewAt = now
}

func (h *Host) newRate(now time.Time) float64 {
	if h.NewRate <= 0 || !now.After(h.NewAt) {
		return max(h.NewRate, 0)
	}
	return h.NewRate * math.Exp(-now.Sub(h.NewAt).Seconds()/newTau.Seconds())
}

// Budget is how many rechecks per second the host's schedule aims at, at
// now: Aim of the policy's share of one request per delay, less its new
// pages.
func (h *Host) Budget(p Policy, delay time.Duration, now time.Time) float64 {
	share := p.Share
	if share <= 0 {
		share = DefaultShare
	}
	if delay <= 0 {
		delay = time.Second
	}
	return max(share/delay.Seconds()-h.newRate(now), 0) * Aim
}

// Aim is the part of its budget a host's schedule is solved for. The
// allocation prices every page at the interval it would choose; a page
// whose interval is held back by Growth is checked more often than that:
// over the simulated month (BenchmarkFreshness) aiming at 95% of the
// budget spent up to 99.6% of it, and 90% spends 78% to 95% (the rest is
// pages whose long intervals do not come round within the month).
const Aim = 0.9

// Mu is the host's threshold for budget (rechecks per second): the μ at
// which its pages' optimal frequencies add up to the budget. 0 when even
// checking every page every Min fits; +Inf when checking every page every
// Max does not (then every page is checked every Max).
func (h *Host) Mu(p Policy, budget float64) float64 {
	if h.solved && h.moved*64 <= h.Pages() && math.Abs(budget-h.muBudget) <= 0.01*h.muBudget {
		return h.mu
	}
	h.mu, h.muBudget, h.moved, h.solved = h.solve(p, budget), budget, 0, true
	return h.mu
}

// solve bisects log μ over [1e-3 s, 1e13 s]: the spend falls as μ grows.
func (h *Host) solve(p Policy, budget float64) float64 {
	if h.spend(p, 0) <= budget {
		return 0
	}
	if h.spend(p, math.Inf(1)) > budget {
		return math.Inf(1)
	}
	lo, hi := -3.0, 13.0
	for range 50 {
		mid := (lo + hi) / 2
		if h.spend(p, math.Pow(10, mid)) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Pow(10, hi)
}

// spend is the checks per second the host's pages take at threshold mu.
func (h *Host) spend(p Policy, mu float64) float64 {
	var s float64
	for i, c := range h.Counts {
		if c > 0 {
			s += float64(c) / p.Optimal(bucketRate(i), mu).Seconds()
		}
	}
	return s
}

// Expected is the host's expected freshness and mean interval at
// threshold mu: what its pages' rates and intervals predict (0, 0 for a
// host with no pages).
func (h *Host) Expected(p Policy, mu float64) (freshness float64, interval time.Duration) {
	n := h.Pages()
	if n == 0 {
		return 0, 0
	}
	var f, secs float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		d := p.Optimal(bucketRate(i), mu)
		if !p.Adaptive {
			d = p.Interval
		}
		f += float64(c) * Freshness(bucketRate(i), d)
		secs += float64(c) * d.Seconds()
	}
	return f / float64(n), time.Duration(secs / float64(n) * float64(time.Second))
}
