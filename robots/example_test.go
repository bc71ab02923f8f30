package robots_test

import (
	"fmt"

	"github.com/politecrawl/politecrawl/robots"
)

func ExampleParse() {
	r := robots.Parse([]byte(`
User-agent: *
Disallow: /private/
Allow: /private/press/
Crawl-delay: 2.5
Sitemap: https://example.org/sitemap.xml
`))
	fmt.Println(r.Allowed("politecrawl/1.0 (+https://example.org/bot)", "https://example.org/private/a"))
	fmt.Println(r.Allowed("politecrawl", "https://example.org/private/press/b"))
	d, _ := r.CrawlDelay("politecrawl")
	fmt.Println(d, r.Sitemaps())
	// Output:
	// false
	// true
	// 2.5s [https://example.org/sitemap.xml]
}

func ExampleRobots_Explain() {
	r := robots.Parse([]byte("User-agent: *\nDisallow: /\n\nUser-agent: politecrawl\nDisallow: /tmp\n"))
	d := r.Explain("politecrawl", "/tmp/x")
	fmt.Println(d.Allowed, d.Scope, d.Rule.Pattern, "line", d.Rule.Line)
	d = r.Explain("otherbot", "/page")
	fmt.Println(d.Allowed, d.Scope, d.Rule.Pattern, "line", d.Rule.Line)
	// Output:
	// false agent /tmp line 5
	// false global / line 2
}

func ExampleRobots_RequestRate() {
	r := robots.Parse([]byte("User-agent: *\nRequest-rate: 1/10s 0800-1700\n"))
	rate, _ := r.RequestRate("politecrawl")
	fmt.Println(rate.Requests, rate.Per, rate.Interval(), rate.Window.Start, rate.Window.End)
	// Output: 1 10s 10s 8h0m0s 17h0m0s
}
