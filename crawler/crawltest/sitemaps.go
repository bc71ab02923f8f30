package crawltest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
)

// Gzip compresses s, for sitemaps served as .gz files.
func Gzip(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func urlset(host string, paths ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range paths {
		loc := p
		if strings.HasPrefix(p, "/") {
			loc = "{{host:" + host + "}}" + p
		}
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2026-02-03</lastmod><changefreq>weekly</changefreq></url>", loc)
	}
	return b.String() + "</urlset>"
}

func index(host string, paths ...string) string {
	var b strings.Builder
	b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range paths {
		fmt.Fprintf(&b, "<sitemap><loc>{{host:%s}}%s</loc></sitemap>", host, p)
	}
	return b.String() + "</sitemapindex>"
}

// Orphans are the shop's pages that no page links to.
var Orphans = []string{"/orphan/1", "/orphan/2", "/orphan/3"}

// SitemapWeb starts a "shop" host whose robots.txt declares a sitemap
// index. The index lists a gzip urlset (served as application/x-gzip,
// without Content-Encoding) holding the orphan pages, an index that lists
// the first index again (a cycle), and a chain of indexes four deep (the
// last is past the depth limit). robots.txt also declares a sitemap it
// disallows. The urlset lists a disallowed page, a page on another host
// ("elsewhere", outside the sitemap's scope), "/" (already seen) and
// /orphan/1 a second time.
func SitemapWeb() *Web {
	w := NewWeb()
	w.AddHost("elsewhere", map[string]*Page{"/robots.txt": {Status: 404}, "/x": {Body: "x"}})
	xml := map[string]string{"Content-Type": "application/xml"}
	w.AddHost("shop", map[string]*Page{
		"/robots.txt": {Body: "User-agent: *\nDisallow: /private/\nDisallow: /blocked-sitemap.xml\n" +
			"Sitemap: /sitemap_index.xml\nSitemap: {{host:shop}}/blocked-sitemap.xml\nSitemap: /sitemap_index.xml\n"},
		"/":                        {Body: `<a href="/a">a</a>`},
		"/a":                       {Body: `no links`},
		"/orphan/1":                {Body: `<title>Orphan 1</title>`},
		"/orphan/2":                {Body: `<title>Orphan 2</title>`},
		"/orphan/3":                {Body: `<title>Orphan 3</title>`},
		"/private/x":               {Body: `never`},
		"/deep-orphan":             {Body: `never: listed past the index depth limit`},
		"/sitemap_index.xml":       {Body: index("shop", "/sitemaps/products.xml.gz", "/sitemaps/loop_index.xml", "/sitemaps/deep1.xml"), Header: xml},
		"/sitemaps/loop_index.xml": {Body: index("shop", "/sitemap_index.xml"), Header: xml},
		"/sitemaps/deep1.xml":      {Body: index("shop", "/sitemaps/deep2.xml"), Header: xml},
		"/sitemaps/deep2.xml":      {Body: index("shop", "/sitemaps/deep3.xml"), Header: xml},
		"/sitemaps/deep3.xml":      {Body: index("shop", "/sitemaps/deep4.xml"), Header: xml},
		"/sitemaps/deep4.xml":      {Body: urlset("shop", "/deep-orphan"), Header: xml},
		"/blocked-sitemap.xml":     {Body: urlset("shop", "/orphan/3"), Header: xml},
	})
	// Placeholders cannot be expanded inside gzip bytes: build it now.
	shop := w.Host("shop")
	shop.SetPage("/sitemaps/products.xml.gz", &Page{
		Body:   Gzip(shop.expand(urlset("shop", "/orphan/1", "/orphan/2", "/private/x", "/", "{{host:elsewhere}}/x", "/orphan/1"))),
		Header: map[string]string{"Content-Type": "application/x-gzip"},
	})
	return w
}
