// Package robotscache owns the robots.txt lifecycle of each origin: fetching
// it with RFC 9309's status-code rules, turning the outcome into a policy,
// and (in the crawl engine) caching it per origin with a TTL.
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
