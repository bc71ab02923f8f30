// Package resolve looks up the addresses of the crawl's hosts before their
// first request, off the crawl's coordinator: a few goroutines take host
// names (Ask) and hand back one address each (Answers), which the frontier
// keeps as the host's IP group and its requests connect to.
//
// # Why not a DNS client of its own
//
// Go's resolver does not tell a lookup's TTL. Rather than speak DNS itself
// (and lose /etc/hosts, nsswitch, search domains and the system's cache),
// a Resolver asks the system and uses the answer for Options.TTL (one
// minute by default), then asks again: the system resolver (systemd-resolved,
// nscd, the operating system's cache) honours the record's own TTL, so an
// answer is at most TTL older than the DNS says it may be, and asking
// again costs a cache hit. An IP address in the host name needs no lookup
// and never expires.
//
// # Caveats
//
// Each lookup has a timeout (Options.Timeout), so a name server that does
// not answer holds one of the Resolver's goroutines for that long, never
// a crawl worker nor the other hosts' lookups. A name with several
// addresses is answered with the first one the system lists (Go sorts
// them by RFC 6724, reachable families first); the host's requests all go
// there until the answer expires, and the host's IP group is that
// address's. Up to MaxOthers further addresses come with it: a connection
// the first refuses (or that times out) is tried at the next, in order,
// as Go's own dialer does, so one server down behind round-robin DNS does
// not fail the host. The request that finds the first address down counts
// in its IP group; the host then joins the group of the address that
// answered, connects there first, and stays there across lookups while
// the name still lists it.
//
// When a host's answer changes, the Fetcher's idle connection to the old
// address can still be reused for it: http.Transport keys its pool by the
// URL's host and port, not by the address dialed, so the request reaches
// the old server while the frontier counts it in the new address's IP
// group. Each reuse renews the connection's idle timeout (90s), so a host
// crawled steadily keeps it until the server closes it. Keying the pool
// by address (a transport per IP group) would end that; not done yet.
package resolve
