package freshness

import (
	"math"
	"time"
)

// Policy is the recheck schedule's setting. The zero value checks nothing
// (Interval 0).
type Policy struct {
	// Adaptive: learn each page's rate and spend the host's budget
	// (see the package doc); otherwise every page is checked Interval
	// after its last check.
	Adaptive bool
	// Interval is the fixed policy's interval, and the adaptive one's
	// first guess for a page nothing is known of (no sitemap
	// changefreq or lastmod).
	Interval time.Duration
	// Min and Max bound an adaptive interval.
	Min, Max time.Duration
	// Share is the part of what politeness allows a host per day (one
	// request per its delay) that its rechecks may use, after its new
	// pages; 0 means DefaultShare.
	Share float64
}

// DefaultShare is the share of a host's politeness capacity rechecks may
// use when Policy.Share is 0.
const DefaultShare = 0.5

// Growth caps how much longer an adaptive interval may get than the mean
// interval of the checks the page's Stats weigh: a page seen unchanged
// once is not left for Max on that alone (the rate of a page checked once
// is poorly known).
const Growth = 2

// Next is how long after a check the page with stats st is checked again.
// prior is the rate to assume while the page was never checked (see
// Prior), mu its host's threshold (Host.Mu).
func (p Policy) Next(st Stats, prior, mu float64) time.Duration {
	if !p.Adaptive {
		return p.Interval
	}
	rate := st.RateOr(prior)
	// The rate of its histogram bucket, as the host's threshold was
	// solved for: a page at the edge of what the budget can keep fresh
	// is on the same side of it as its bucket.
	d := p.Optimal(bucketRate(bucketOf(rate)), mu)
	if st.Checks > 0 {
		if limit := time.Duration(Growth * st.Millis / int64(st.Checks) * int64(time.Millisecond)); d > limit {
			d = max(limit, p.Min)
		}
	}
	return d
}

// Optimal is the interval that spends a budget with threshold mu best on
// a page changing at rate (per second), within [Min, Max]: the solution of
// (1 − (1 + r)e^{−r})/λ = μ, r = λ·interval. A page never seen to change,
// or changing too often for mu (λμ ≥ 1), gets Max; mu 0 (budget to spare)
// gives Min.
func (p Policy) Optimal(rate, mu float64) time.Duration {
	switch {
	case rate <= 0:
		return p.Max
	case mu <= 0:
		return p.Min
	}
	y := mu * rate
	if y >= 1 {
		return p.Max
	}
	secs := invG(y) / rate
	if secs >= p.Max.Seconds() {
		return p.Max
	}
	return max(time.Duration(secs*float64(time.Second)), p.Min)
}

// g(r) = 1 − (1 + r)e^{−r}: a page's marginal freshness per unit of check
// frequency, times its rate. It rises from 0 to 1.
func g(r float64) float64 { return -math.Expm1(-r) - r*math.Exp(-r) }

// invG solves g(r) = y for 0 < y < 1: bisection on r in (0, 64],
// where g is monotone (g(64) is 1 to float precision).
func invG(y float64) float64 {
	lo, hi := 0.0, 64.0
	for range 60 {
		mid := (lo + hi) / 2
		if g(mid) < y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Prior is the rate to assume for a page never checked: from its sitemap
// changefreq when given, else from its sitemap lastmod (a page last
// changed age ago is taken to change about once an age), else one change
// per Interval.
func (p Policy) Prior(changefreq string, lastmod, now time.Time) float64 {
	if d, ok := changefreqs[changefreq]; ok {
		if d == 0 {
			return 0
		}
		return 1 / d.Seconds()
	}
	if !lastmod.IsZero() && now.After(lastmod) {
		age := max(now.Sub(lastmod), p.Min, time.Minute)
		return 1 / age.Seconds()
	}
	if p.Interval <= 0 {
		return 0
	}
	return 1 / p.Interval.Seconds()
}

// changefreqs maps the sitemap protocol's changefreq values to a mean
// time between changes; "never" is a page that does not change (archived).
var changefreqs = map[string]time.Duration{
	"always":  time.Minute,
	"hourly":  time.Hour,
	"daily":   24 * time.Hour,
	"weekly":  7 * 24 * time.Hour,
	"monthly": 30 * 24 * time.Hour,
	"yearly":  365 * 24 * time.Hour,
	"never":   0,
}
