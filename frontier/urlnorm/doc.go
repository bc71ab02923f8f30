// Package urlnorm turns URLs into the one form the crawler stores, fetches
// and deduplicates on (RFC 3986 section 6 safe normalisations, SPEC 5).
// What is inside the crawl's scope is frontier/scope's to say.
//
// Normalise does: lower-case scheme and host, IDN hosts to punycode
// (UTS #46 non-transitional), a trailing dot on the host removed, the
// default port dropped, an empty path made "/", dot segments removed
// (RFC 3986 5.2.4, never path.Clean, which would also merge "//" and drop
// a trailing slash), percent-encoding made canonical (upper-case hex,
// unreserved escapes decoded, reserved ones kept, raw bytes encoded), an
// empty "?" and the fragment dropped. URLs with credentials and schemes
// other than http and https are refused.
//
// The package does no I/O and imports nothing else from this module.
package urlnorm
