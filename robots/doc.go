// Package robots parses robots.txt files and answers the questions a polite
// crawler asks of them: may this agent fetch this URL, how long should it wait
// between requests, and which sitemaps does the site declare.
//
// # Basics
//
// Parse never fails: any byte string is a robots.txt file, and whatever cannot
// be understood is skipped, as RFC 9309 requires. The returned *Robots is
// immutable and safe for concurrent use; decide many URLs against one parse.
//
//	r := robots.Parse(body)
//	if r.Allowed("politecrawl/1.0 (+https://example.org/bot)", "https://example.org/a?b") { ... }
//
// Parse is one pass that keeps each group's lines raw. The groups that apply
// to an agent are merged and compiled on the first question about that
// agent (a decision, CrawlDelay or RequestRate), so the first question costs
// about as much again as Parse and later ones do not allocate; agents never
// asked about cost nothing.
//
// # What it implements
//
//   - RFC 9309 groups and rules: consecutive user-agent lines share the rules
//     that follow, blank lines and other records never split a group, every
//     group naming the agent is merged, and the "*" group applies only when
//     no group names the agent.
//   - Longest match wins, measured in pattern octets; allow wins a tie; "*"
//     matches any run, "$" anchors only as the last character.
//   - The leniencies of Google's production parser (github.com/google/robotstxt):
//     misspelt field names, a missing colon, a partial BOM, the per-line cap of
//     16,664 bytes and the index.htm(l) directory rule.
//   - Crawl-delay and Request-rate (with an optional UTC time window) read from
//     the matched group, falling back to the "*" group as Bing does.
//   - Sitemap lines anywhere in the file, in file order without duplicates.
//   - Content-Usage (draft-ietf-aipref-attach) and Content-Signal
//     (Cloudflare) lines of a group, with an optional leading path matched
//     as allow and disallow patterns are: UseRules says which apply to a
//     URL and keeps their values as written. Like Crawl-delay they never
//     end a run of user-agent lines, so files group exactly as before.
//
// # Percent-encoding: two readings, the stricter wins
//
// RFC 9309 compares both sides in one canonical form: upper-case hex, escapes
// of unreserved characters decoded, bytes >= 0x80 encoded. Google's parser
// instead escapes only the pattern and compares the URL as given. The two
// disagree on a few inputs (a raw non-ASCII URL, an escaped unreserved
// character such as %62). A polite crawler must not fetch what either reading
// forbids, so Allowed evaluates both and allows only when both allow. When
// neither the URL nor the rules contain anything the readings treat
// differently (the common case) this costs one evaluation.
//
// # Caveats
//
//   - Only the first MaxSize (512,000) bytes are parsed; if the body was cut,
//     the partial last line is dropped so a cut pattern cannot widen a rule.
//   - Relative Sitemap URLs are returned as written: the package does no I/O
//     and does not know where the file came from.
//   - The package is pure: no network or file access, and it imports nothing
//     else from this module.
package robots
