// Package sitemap is a streaming parser for the files sites publish to
// list their URLs: sitemaps.org urlset and sitemapindex XML, plain-text
// sitemaps (one URL a line), RSS 2.0 and Atom 1.0 feeds (SPEC section 4).
//
// Parse reads from an io.Reader with an encoding/xml token decoder, never a
// whole-file DOM, and hands each entry to a callback, so memory does not
// grow with the file. gzip is recognised by its magic bytes, whatever the
// file name or headers say, and the limits (MaxEntries entries and MaxBytes
// bytes per file) apply to the decompressed stream: a decompression bomb or
// an endless file costs at most those bounds. Past a limit Parse stops,
// keeps what came before and says so in Result.Truncated.
//
// Namespaces are matched loosely: the sitemaps.org URI over http or https,
// with or without a trailing slash, the old Google URIs, or none. Elements
// in other namespaces (image, video, news, xhtml:link) are extensions and
// are skipped, never mistaken for a <loc> and never a reason to fail.
//
// The package does no I/O of its own, does not fetch or enqueue, and
// imports nothing else from this module.
package sitemap
