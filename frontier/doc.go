// Package frontier decides what is fetched and when: admission of new URLs
// (seen set, scope, depth, page budgets and trap guards), the per-host FIFO
// queues persisted through storage, and the per-host schedule that keeps
// one request in flight per host, spaced by the host's delay.
//
// # Types
//
//   - Frontier: the owner of every host's life, the only type the crawler
//     calls. Its verbs (Admit, Claim, Take, Back, Release, Cancel, Idle,
//     Finish, Settle, Retry, Requeue, Drop, Save, Restore; the sitemap
//     files: DeclareSitemaps, RecordSitemap; the recheck schedule:
//     Checked, ScheduleCheck, Promote, SweepSome, whose policy, fixed or
//     adaptive, is frontier/freshness's) each take the batch's transaction
//     where they change a queue, and write it and update the host in the
//     same call. A claim's id tells a late report from a current one.
//     model_test.go checks its invariants against an in-memory model.
//   - Delay: the pure spacing formula (default, Crawl-delay, Request-rate,
//     cap), the floor of a host's delay; Spacing raises it by the
//     adaptive terms (Adaptive: latency factor × smoothed time to first
//     byte, doubled per error and halved per success; adaptive.go), and
//     DelayReason says which one is in force.
//   - Lookups and Resolved (address.go): with Options.ResolveFirst no host
//     is claimed before its name is looked up, so it is in its IP group,
//     and its request pinned to that address (Claim.IP), from its first
//     request.
//   - Host: everything kept in memory about one authority, in one place:
//     its queue counts, cursor and a short in-memory head of the URLs
//     after it; its politeness slot (a golang.org/x/time/rate limiter
//     with burst 1, a hold for Retry-After and backoff, the request in
//     flight, its IP group); its consecutive failures. Record is what
//     survives a restart (storage.HostRecord), RestoreHost reads it back.
//   - Scheduler: the Frontier's schedule over its Hosts, the only code
//     that changes one; the Frontier tells it what happened (Enqueued, Take, Settled,
//     Removed, Returned, Fail, Started, Done, Committed) and asks Next
//     for "the next host whose slot is open, or how long until one is".
//     A host whose next URLs are only in a batch still being committed is
//     not offered until Committed says that batch landed. Time is passed
//     in, never read, so tests are deterministic.
//   - Admitter: the rules that turn a discovered URL into a queued record,
//     a skipped record with its reason, or nothing (out of scope, seen).
//     The scope is a frontier/scope.Scope; a queued URL is asked again
//     when it comes up (OutOfScope), so a reloaded rule takes effect on
//     what was queued under the old ones.
//     Limits holds the page budgets and the trap guards (DefaultLimits has
//     them all on): URL length, repeated segments, queries that grow,
//     session ids, dates too far ahead, calendar navigation too far from
//     today, and too many dated URLs of one pattern per host. Refusals by
//     a guard carry a reason starting "trap: ". Today comes from the now
//     function given to NewAdmitter.
//   - Overrides: the config's hosts: section, per host or domain: a
//     delay floor in place of the default (robots.txt still wins when
//     slower), a page budget, whether bodies and WARC records are kept.
//
// # Caveats
//
// Scheduler and Admitter are not safe for concurrent use: the crawl's
// coordinator goroutine owns them. Queued URLs live on disk; memory grows
// with the number of hosts, not of URLs. The per-pattern count of dated
// URLs is a fixed 512 KiB sketch in memory (made on the first dated URL):
// it may overcount when patterns collide, never undercount, and starts
// from zero when a crawl resumes.
package frontier
