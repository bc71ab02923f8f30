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
// # Basics
//
// Parse (or HTML, its short form) reads a page with goquery: the document
// is parsed into a tree as browsers do (golang.org/x/net/html) and queried
// with selectors. Two kinds of page take a fallback, a single pass of the
// same package's tokenizer that builds no tree: pages over 1 MiB (a tree
// costs many times its source: a 10 MiB page of links made hundreds of MB)
// and pages html.Parse refuses (more than 512 open elements, where the
// tree parser would lose the title and every link). Raw-text elements
// (script, style, textarea, noscript, title, ...) are read as the HTML
// parser reads them, so the stream finds what the tree holds, at any
// nesting depth and in time linear in the body; TestTreeMatchesStream
// keeps the two in step. On a 10 KB page of 200 links the tree costs about
// 0.34 ms and the stream 0.21 ms (BenchmarkParsers).
//
// # Bounds
//
//   - Links: at most Options.MaxLinks (default DefaultMaxLinks, 10,000)
//     are kept, the first in document order; the rest are counted in
//     Page.LinksDropped. Links that differ only in their fragment are one
//     link, for the cap and the count. HTML, the older entry point, keeps every link.
//   - Links that cannot be used are reported, not silently lost: longer
//     than MaxURLLength (8,192 bytes) or unparsable, in Page.Skipped (at
//     most MaxSkipped, each URL cut to 2,048 bytes) and Page.SkippedMore.
//     A '%' that starts no escape is kept as %25, as frontier/urlnorm does.
//   - The title is read up to 4,096 bytes.
//
// The package does not decide scope, enqueue or fetch, and imports nothing
// else from this module.
package extract
