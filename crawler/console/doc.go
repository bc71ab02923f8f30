// Package console is the crawl's web console: the HTML pages served at
// "/" under http.listen that show a crawl at a glance (the overview), every
// host (a table that filters, sorts and pages) and one host in detail.
//
// It only reads. Every page renders one status snapshot (the same one
// GET /status and `politecrawl status` show), taken through a Source and
// kept for a second so that many open consoles cost one snapshot; the
// snapshot is taken first, then rendered, so rendering holds nothing the
// crawl needs. Templates, style sheet and script are embedded: the console
// works with no network. Pages are html/template (every value escaped),
// the script is a file of its own (the Content-Security-Policy allows no
// inline script), and frames are refused.
//
// Caveats: it has no authentication of its own (it changes nothing; see
// the daemon's http.token for the endpoints that do), and the per-host
// figures are those of the snapshot, at most a second old.
package console
