// Package fetch performs one HTTP request for the crawler and nothing
// else: the shared client with the configured User-Agent and From headers,
// connect, header and total timeouts, a body cap, redirects returned as data
// (never followed), and the private-address guard.
//
// The guard sits in the dialer's ControlContext, which sees the IP address
// actually being connected to after DNS resolution, so neither a DNS name
// pointing at 127.0.0.1 nor a redirect to an internal host can bypass it.
//
// It does not consult robots.txt, follow redirects or write storage.
package fetch
