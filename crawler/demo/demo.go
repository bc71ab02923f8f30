// Package demo is the small site `politecrawl demo` crawls: one loopback
// host whose robots.txt has a Crawl-delay and a disallowed area, pages with
// meta noindex and nofollow, a rel="ugc" link, a redirect, a PDF with an
// X-Robots-Tag header, and a sitemap (declared in robots.txt) that lists a
// page no page links to.
package demo

import "github.com/politecrawl/politecrawl/crawler/crawltest"

// Robots is the demo site's robots.txt.
const Robots = `# The demo site's robots.txt
User-agent: *
Disallow: /admin/
Disallow: /*?sort=
Crawl-delay: 0.5
Sitemap: /sitemap.xml

User-agent: badbot
Disallow: /
`

func page(title, body string) *crawltest.Page {
	return &crawltest.Page{Body: "<!DOCTYPE html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"}
}

// Site starts the demo web; Close it when done. Crawl its host's "/".
func Site() *crawltest.Web {
	w := crawltest.NewWeb()
	w.AddHost("demo", map[string]*crawltest.Page{
		"/robots.txt": {Body: Robots, Header: map[string]string{"Content-Type": "text/plain"}},
		"/": page("Demo shop", `<h1>Demo shop</h1>
			<a href="/about">About</a> <a href="/products/">Products</a> <a href="/blog/">Blog</a>
			<a href="/admin/login">Admin</a> <a href="/products/?sort=price">Sorted</a>
			<a href="/drafts">Drafts</a> <a href="/old-about">Old about page</a>
			<a href="/catalog.pdf">Catalog (PDF)</a> <a href="mailto:shop@example.org">Mail us</a>`),
		"/about":             page("About us", `<a href="/">Home</a>`),
		"/old-about":         {Status: 301, Header: map[string]string{"Location": "/about"}},
		"/products/":         page("Products", `<a href="/products/teapot">Teapot</a> <a href="/products/kettle">Kettle</a>`),
		"/products/teapot":   page("Teapot", `<a href="/products/">All products</a>`),
		"/products/kettle":   page("Kettle", `<a href="/products/">All products</a>`),
		"/blog/":             page("Blog", `<a href="/blog/first-post">First post</a>`),
		"/blog/first-post":   page("First post", `<p>Comment: <a rel="ugc" href="/spam-link">cheap pills</a></p>`),
		"/drafts":            {Body: `<html><head><title>Drafts</title><meta name="robots" content="noindex"></head><body><a href="/drafts/idea">Idea</a></body></html>`},
		"/drafts/idea":       {Body: `<html><head><title>An idea</title><meta name="robots" content="nofollow"></head><body><a href="/secret-plan">Plan</a></body></html>`},
		"/catalog.pdf":       {Body: "%PDF-1.4 demo", Header: map[string]string{"Content-Type": "application/pdf", "X-Robots-Tag": "noindex"}},
		"/admin/login":       page("Admin", `must never be fetched`),
		"/secret-plan":       page("Plan", `only linked from a nofollow page`),
		"/spam-link":         page("Spam", `only linked with rel=ugc`),
		"/press/2026-launch": page("Launch news", `<a href="/">Home</a> (listed in the sitemap, linked from no page)`),
		"/sitemap.xml":       {Body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{{host:demo}}/</loc></url><url><loc>{{host:demo}}/press/2026-launch</loc><lastmod>2026-11-01</lastmod></url></urlset>`, Header: map[string]string{"Content-Type": "application/xml"}},
	})
	return w
}
