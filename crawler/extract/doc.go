// Package extract reads one fetched page: its title, the links a crawler
// may follow, and the robots directives that apply to our agent, from
// <meta name="robots">, <meta name="AGENT"> (anywhere in the document, as
// Google reads them) and X-Robots-Tag headers (unprefixed or prefixed with
// our agent). Directives from every source are combined; the most
// restrictive wins, and "none" means noindex plus nofollow.
//
// Links come from <a href> and <area href>, resolved against the first
// <base href> (itself resolved against the page's final URL), with
// javascript:, mailto:, tel: and data: dropped, fragments removed, and
// links marked rel nofollow, ugc or sponsored left out. A page-level
// nofollow leaves Links empty.
//
// The package does not decide scope, enqueue or fetch, and imports nothing
// else from this module.
package extract
