// Package robotscache owns the robots.txt lifecycle of each origin: fetching
// it with RFC 9309's status-code rules and turning the outcome into a policy
// (Fetch, Step), and, in Cache, everything after: one fetch per origin
// however many hosts wait on it, the TTL (or a shorter max-age), retries of
// an unreachable file (doubling, or the server's Retry-After up to a cap)
// with the last good copy standing in for up to 30 days, giving up, and
// the record the state file keeps (Record, Restore; Import for a cluster).
// The crawl engine asks the Cache what a URL's origin needs (Next) and
// tells it what came back; it keeps only the scheduling.
//
// Fetch maps an HTTP exchange to an Outcome:
//
//   - 2xx: the body is parsed (at most robots.MaxSize bytes are used).
//   - 3xx: up to MaxRedirects hops are followed, even to other hosts; the
//     rules apply to the original origin. Past that the file is unavailable.
//   - 4xx except 429: unavailable, so there are no restrictions.
//   - 429, 5xx, network errors, timeouts and broken bodies: unreachable, so
//     the whole origin is disallowed until a retry succeeds.
//
// It parses nothing itself (package robots does) and schedules no page
// fetches.
package robotscache
