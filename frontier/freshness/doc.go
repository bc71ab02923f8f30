// Package freshness is the recheck schedule's policy: how long after a
// check a page is checked again. It is pure arithmetic over small values
// (no I/O, no clock: time is passed in), so the crawler's frontier and the
// freshness benchmark's simulated web run the same code.
//
// # Policies
//
//   - Fixed: every page is checked Interval after its last check (what
//     daemon.recrawl_interval always did).
//   - Adaptive: each page's change rate is estimated from what its checks
//     saw (Stats, Stats.Rate), and each host's request budget is spent
//     where it buys the most freshness (Host, Policy.Next), between Min
//     and Max.
//
// # The model (Cho and Garcia-Molina)
//
// A page changes as a Poisson process of rate λ. Checked every 1/f, the
// share of time its stored copy is current is F(λ, f) = (1 − e^{−λ/f})·f/λ.
// Maximising Σ F(λᵢ, fᵢ) under Σ fᵢ = B (the host's budget) gives, by a
// Lagrange multiplier μ, ∂F/∂f = (1 − (1 + r)e^{−r})/λ = μ with r = λ/f for
// every page: one μ per host, found by bisection because Σ fᵢ(μ) falls as
// μ grows. A page whose λμ ≥ 1 changes too often for the budget to keep it
// fresh any useful share of the time: it is checked only every Max. A page
// never seen to change (λ = 0) is checked every Max too.
//
// # Caveats
//
// The rates of a host's pages are kept as a histogram of 49 log-spaced
// buckets (Host), not per page: μ is solved on it in microseconds and it
// fits in the host's record. A page's interval is solved for its bucket's
// rate too (Policy.Next), so that it is on the side of λμ = 1 the budget
// was solved for: pages that all look alike (new ones, at the same prior)
// would otherwise all fall on the wrong side of it and be left for Max. It follows the pages as they are checked,
// so after a page leaves the schedule its bucket keeps it until the
// schedule is redone. The estimator assumes one page's intervals are
// similar (the growth of an interval is capped at Growth per check).
package freshness
