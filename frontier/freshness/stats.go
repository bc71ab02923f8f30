package freshness

import (
	"math"
	"time"
)

// Stats is what a page's checks saw, kept small: it lives in the page's
// record. Checks and Changes count the checks and those that found a new
// payload digest; Millis is the time the checks covered (the sum of the
// intervals, in milliseconds). They decay (see Observe) so the estimate follows a page
// whose rate changes. The zero value is a page never checked.
type Stats struct {
	Checks, Changes int
	Millis          int64
}

// Window is the number of checks Stats weighs: past it, the counts and the
// time are scaled by 3/4, so older checks weigh less.
const Window = 32

// Observe returns s with one more check that covered interval and found
// the page changed or not. A check covering no time (under a millisecond)
// adds nothing.
func (s Stats) Observe(interval time.Duration, changed bool) Stats {
	ms := interval.Milliseconds()
	if ms <= 0 {
		return s
	}
	s.Checks++
	if changed {
		s.Changes++
	}
	s.Millis += ms
	if s.Checks > Window {
		s.Checks = s.Checks * 3 / 4
		s.Changes = (s.Changes*3 + 2) / 4
		s.Changes = min(s.Changes, s.Checks)
		s.Millis = s.Millis * 3 / 4
	}
	return s
}

// Rate is the page's estimated change rate, in changes per second; 0 for
// a page never seen to change, and ok false for a page never checked.
//
// It is Cho and Garcia-Molina's improved estimator for a page checked n
// times at an interval I, X̄ of which found it unchanged:
// λ̂ = −log((X̄ + 0.5)/(n + 0.5)) / I. Unlike the naive X/(nI), it is
// nearly unbiased when changes are missed (two changes between checks
// count as one) and stays finite when every check found a change; with no
// change seen it is 0. Intervals of one page vary (the policy moves
// them); I is their mean, which the capped growth of an interval keeps
// representative.
func (s Stats) Rate() (float64, bool) {
	if s.Checks <= 0 || s.Millis <= 0 {
		return 0, false
	}
	n := float64(s.Checks)
	unchanged := float64(max(s.Checks-s.Changes, 0))
	mean := float64(s.Millis) / 1000 / n
	return -math.Log((unchanged+0.5)/(n+0.5)) / mean, true
}

// RateOr is Rate, or prior for a page never checked.
func (s Stats) RateOr(prior float64) float64 {
	if r, ok := s.Rate(); ok {
		return r
	}
	return prior
}

// Freshness is F(λ, f): the expected share of time a page changing at
// rate (per second) keeps its stored copy current when checked every
// interval.
func Freshness(rate float64, interval time.Duration) float64 {
	if rate <= 0 {
		return 1
	}
	x := rate * interval.Seconds()
	if x < 1e-9 {
		return 1
	}
	return -math.Expm1(-x) / x
}
