// Package crawltest serves test webs for the crawler, the way
// net/http/httptest serves one handler: several hosts, each an httptest
// server on loopback with its own robots.txt and pages, each logging every
// request it receives. The log is the ground truth for politeness checks:
// robots.txt first, never two requests in flight to one host, start-to-start
// gaps never below the host's delay, nothing disallowed requested.
//
// Standard builds the multi-host web the crawler's tests use; the demo
// command builds its own site with the same types.
package crawltest
