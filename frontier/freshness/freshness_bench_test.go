package freshness_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier/freshness"
)

const day = 24 * time.Hour

// monthWeb is the benchmark's web: 2,000 pages on 10 hosts, rates
// log-uniform from one change an hour to one a year (never, within the
// month), a 10 s delay, perDay rechecks allowed per host.
func monthWeb(perDay float64) web {
	return web{hosts: 10, pages: 200, fastest: time.Hour, slowest: 365 * day,
		span: 30 * day, perDay: perDay, delay: 10 * time.Second, seed: 23}
}

// benchPolicy is the adaptive policy the figures are for: the defaults
// of daemon.recrawl_min and daemon.recrawl_max, and a day as the first
// guess (daemon.recrawl_interval).
var benchPolicy = freshness.Policy{Interval: day, Min: time.Hour, Max: 30 * day}

type figures struct {
	adaptive, fixed, multiply, optimal outcome
	fixedInterval, multiplyMin         time.Duration
	// optimalGain is optimal's freshness over the best fixed interval's
	// at as many requests as optimal made (it spends less than the
	// adaptive schedule: its long intervals do not all come round in a
	// month).
	optimalGain float64
}

func measure(w web) figures {
	var f figures
	f.adaptive = w.run(newAdaptive(w, benchPolicy))
	f.fixedInterval, f.fixed = w.bestFixed(f.adaptive.requests, benchPolicy.Min, benchPolicy.Max)
	f.multiplyMin, f.multiply = w.multiplyAt(f.adaptive.requests, benchPolicy.Interval, benchPolicy.Min, benchPolicy.Max)
	f.optimal = w.run(optimal{newAdaptive(w, benchPolicy)})
	_, of := w.bestFixed(f.optimal.requests, benchPolicy.Min, benchPolicy.Max)
	f.optimalGain = f.optimal.freshness / of.freshness
	return f
}

// BenchmarkFreshness runs a simulated month of rechecks of 2,000 pages
// under the adaptive schedule (the frontier's policy code), the best
// fixed interval making no more requests, Nutch's multiply rule with the
// shortest minimum interval making no more requests either (it knows no
// budget; with daemon.recrawl_min's hour as its minimum it spends 2 to 23
// times the budget; multiply_budget_used says what it spent), and the
// optimal allocation with the true rates known (the most any schedule
// could get), at a few budgets: rechecks per host per day, each host
// having 200 pages and allowing 8,640 requests a day at its 10 s delay.
func BenchmarkFreshness(b *testing.B) {
	for _, perDay := range []float64{20, 50, 200} {
		b.Run(fmt.Sprintf("budget=%g/host/day", perDay), func(b *testing.B) {
			var f figures
			for b.Loop() {
				f = measure(monthWeb(perDay))
			}
			b.ReportMetric(f.adaptive.freshness, "freshness_adaptive")
			b.ReportMetric(f.fixed.freshness, "freshness_fixed")
			b.ReportMetric(f.multiply.freshness, "freshness_multiply")
			b.ReportMetric(f.optimal.freshness, "freshness_optimal")
			b.ReportMetric(f.adaptive.freshness/f.fixed.freshness, "adaptive_gain")
			b.ReportMetric(f.optimalGain, "optimal_gain")
			b.ReportMetric(float64(f.adaptive.requests)/f.adaptive.allowed, "budget_used")
			b.ReportMetric(float64(f.multiply.requests)/f.multiply.allowed, "multiply_budget_used")
			b.ReportMetric(float64(f.fixed.requests)/f.fixed.allowed, "fixed_budget_used")
			b.ReportMetric(f.fixedInterval.Hours(), "fixed_interval_h")
			b.ReportMetric(f.multiplyMin.Hours(), "multiply_min_h")
		})
	}
}
