package crawltest

import "time"

// Delays of the standard web's hosts, for assertions.
const (
	MainDelay = 200 * time.Millisecond // Crawl-delay: 0.2
	RateDelay = 300 * time.Millisecond // Request-rate: 1/0.3s
	BusyHold  = time.Second            // Retry-After: 1 on the first request
)

func html(body string) *Page { return &Page{Body: "<!DOCTYPE html><html>" + body + "</html>"} }

// Standard starts the multi-host test web:
//
//	main   robots.txt with Disallow: /private/ and Crawl-delay 0.2; pages with
//	       meta noindex, meta nofollow, X-Robots-Tag, rel=nofollow/ugc links,
//	       a redirect, a non-HTML document and a repeated-segment trap
//	rate   Request-rate 1/0.3s
//	busy   the first request to / gets 429 with Retry-After: 1
//	flaky  / answers 500 twice, then 200
//	down   robots.txt always 503: nothing else may ever be requested
//	gone   robots.txt 404: no restrictions
//	other  robots.txt redirects to main's /robots-other.txt (rules apply to other)
//	broken / always answers 500: it fails after the retries
//
// Seed it with main's "/". What a polite crawl must and must not fetch is
// listed in MustFetch and MustNotFetch.
func Standard() *Web {
	w := NewWeb()
	w.AddHost("main", map[string]*Page{
		"/robots.txt": {Body: "# main\nUser-agent: *\nDisallow: /private/\nCrawl-delay: 0.2\n\nUser-agent: otherbot\nDisallow: /\n", Header: map[string]string{"Content-Type": "text/plain"}},
		"/": html(`<head><title>Main home</title></head><body>
			<a href="/a">a</a> <a href="/b">b</a> <a href="/private/secret">secret</a>
			<a href="/noindex">noindex</a> <a href="/nofollow">nofollow</a> <a href="/rel">rel</a>
			<a href="/xrobots">xrobots</a> <a href="/redirect">redirect</a> <a href="/loop/">loop</a>
			<a href="/doc.pdf">pdf</a> <a href="mailto:x@example.org">mail</a> <a href="javascript:void(0)">js</a>
			<a href="http://outside.invalid/">outside</a>
			<a href="{{host:rate}}/">rate</a> <a href="{{host:busy}}/">busy</a> <a href="{{host:flaky}}/">flaky</a>
			<a href="/ra">redirect loop</a> <a href="{{host:broken}}/">broken</a>
			<a href="{{host:down}}/">down</a> <a href="{{host:gone}}/">gone</a> <a href="{{host:other}}/">other</a>
			</body>`),
		"/a":                 html(`<title>A</title><a href="/a/deep#frag">deep</a> <a href="./">home</a>`),
		"/a/deep":            html(`<title>Deep</title><a href="/a">a</a>`),
		"/b":                 html(`<title>B</title><a href="/a">a again</a>`),
		"/private/secret":    html(`<title>Secret</title>`),
		"/noindex":           html(`<head><meta name="robots" content="noindex"></head><a href="/from-noindex">x</a>`),
		"/from-noindex":      html(`<title>Found through a noindex page</title>`),
		"/nofollow":          html(`<head><meta name="ROBOTS" content="NOFOLLOW"></head><a href="/only-via-nofollow">x</a>`),
		"/only-via-nofollow": html(`<title>Must not be fetched</title>`),
		"/rel":               html(`<a rel="nofollow" href="/rel-nofollow">1</a><a rel="ugc" href="/rel-ugc">2</a><a rel="sponsored noopener" href="/rel-sponsored">3</a><a rel="noopener" href="/rel-ok">4</a>`),
		"/rel-nofollow":      html(`x`),
		"/rel-ugc":           html(`x`),
		"/rel-sponsored":     html(`x`),
		"/rel-ok":            html(`<title>rel ok</title>`),
		"/xrobots":           {Body: `<a href="/xr-target">x</a>`, Header: map[string]string{"X-Robots-Tag": "politecrawl: nofollow, noindex"}},
		"/xr-target":         html(`x`),
		"/redirect":          {Status: 301, Header: map[string]string{"Location": "/redirected"}},
		"/redirected":        html(`<title>Redirected</title>`),
		"/loop/":             html(`<a href="loop/">deeper</a>`),
		"/loop/loop/":        html(`<a href="loop/">deeper</a>`),
		"/loop/loop/loop/":   html(`<a href="loop/">deeper</a>`),
		"/doc.pdf":           {Body: "%PDF-1.4 ...", Header: map[string]string{"Content-Type": "application/pdf", "X-Robots-Tag": "noindex"}},
		"/robots-other.txt":  {Body: "User-agent: *\nDisallow: /blocked\n", Header: map[string]string{"Content-Type": "text/plain"}},
		"/ra":                {Status: 302, Header: map[string]string{"Location": "/rb"}},
		"/rb":                {Status: 302, Header: map[string]string{"Location": "/ra"}},
	})
	w.AddHost("broken", map[string]*Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Status: 500},
	})
	w.AddHost("rate", map[string]*Page{
		"/robots.txt": {Body: "User-agent: *\nRequest-rate: 1/0.3s\n"},
		"/":           html(`<a href="/r1">1</a><a href="/r2">2</a><a href="/r3">3</a>`),
		"/r1":         html(`r1`),
		"/r2":         html(`r2`),
		"/r3":         html(`r3`),
	})
	w.AddHost("busy", map[string]*Page{
		"/robots.txt": {Body: "User-agent: *\nAllow: /\n"},
		"/":           {Body: `<a href="/after-busy">x</a>`, FailTimes: 1, FailStatus: 429, FailHeader: map[string]string{"Retry-After": "1"}},
		"/after-busy": html(`ok`),
	})
	w.AddHost("flaky", map[string]*Page{
		"/robots.txt": {Status: 404},
		"/":           {Body: `flaky ok`, FailTimes: 2, FailStatus: 500},
	})
	w.AddHost("down", map[string]*Page{
		"/robots.txt": {FailTimes: 1 << 30, FailStatus: 503},
		"/":           html(`must never be fetched`),
	})
	w.AddHost("gone", map[string]*Page{
		"/robots.txt": {Status: 404},
		"/":           html(`<a href="/anything">x</a>`),
		"/anything":   html(`ok`),
	})
	w.AddHost("other", map[string]*Page{
		"/robots.txt": {Status: 302, Header: map[string]string{"Location": "{{host:main}}/robots-other.txt"}},
		"/":           html(`<a href="/blocked">b</a><a href="/open">o</a>`),
		"/blocked":    html(`must not be fetched`),
		"/open":       html(`ok`),
	})
	return w
}

// MustFetch lists, per host, the paths a polite crawl of Standard fetches
// (each exactly once, except where retries are expected).
var MustFetch = map[string][]string{
	"main": {"/robots.txt", "/", "/a", "/a/deep", "/b", "/noindex", "/from-noindex", "/nofollow", "/rel",
		"/rel-ok", "/xrobots", "/redirect", "/redirected", "/loop/", "/loop/loop/", "/loop/loop/loop/", "/doc.pdf",
		"/robots-other.txt", "/ra", "/rb"},
	"rate":  {"/robots.txt", "/", "/r1", "/r2", "/r3"},
	"busy":  {"/robots.txt", "/", "/after-busy"},
	"flaky": {"/robots.txt", "/"},
	"gone":  {"/robots.txt", "/", "/anything"},
	"other": {"/robots.txt", "/", "/open"},
}

// MustNotFetch lists paths a polite crawl never requests.
var MustNotFetch = map[string][]string{
	"main":  {"/private/secret", "/only-via-nofollow", "/rel-nofollow", "/rel-ugc", "/rel-sponsored", "/xr-target", "/loop/loop/loop/loop/"},
	"down":  {"/"},
	"other": {"/blocked"},
}
