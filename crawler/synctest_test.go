package crawler

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// TestExactSpacing runs a crawl inside a synctest bubble over an in-memory
// network: time is fake and advances only when everything waits, so every
// start-to-start gap must equal the host's interval, to the millisecond,
// however loaded the machine running the test is.
func TestExactSpacing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := crawltest.NewPipeNet()
		w := crawltest.NewWeb()
		defer w.Close()
		page := func(links string) *crawltest.Page { return &crawltest.Page{Body: links} }
		w.AddPipeHost("crawl", pn, "crawl.test", map[string]*crawltest.Page{
			"/robots.txt": {Body: "User-agent: *\nCrawl-delay: 0.25\n"},
			"/":           page(`<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a><a href="http://rate.test/">r</a><a href="http://plain.test/">p</a><a href="http://busy.test/">b</a><a href="http://down.test/">d</a>`),
			"/1":          page(""), "/2": page(""), "/3": page(""),
		})
		w.AddPipeHost("rate", pn, "rate.test", map[string]*crawltest.Page{
			"/robots.txt": {Body: "User-agent: *\nRequest-rate: 2/1s\n"},
			"/":           page(`<a href="/x">x</a><a href="/y">y</a>`),
			"/x":          page(""), "/y": page(""),
		})
		w.AddPipeHost("plain", pn, "plain.test", map[string]*crawltest.Page{
			"/robots.txt": {Status: 404},
			"/":           page(`<a href="/q">q</a>`),
			"/q":          page(""),
		})
		w.AddPipeHost("busy", pn, "busy.test", map[string]*crawltest.Page{
			"/robots.txt": {Status: 404},
			"/":           {Body: `<a href="/after">a</a>`, FailTimes: 1, FailStatus: 429, FailHeader: map[string]string{"Retry-After": "2"}},
			"/after":      page(""),
		})
		w.AddPipeHost("down", pn, "down.test", map[string]*crawltest.Page{
			"/robots.txt": {FailTimes: 1 << 30, FailStatus: 503},
		})
		cfg := testConfig("http://crawl.test/")
		cfg.Scope = []string{"crawl.test", "rate.test", "plain.test", "busy.test", "down.test"}
		cfg.Fetch.DialContext = pn.Dial
		cfg.Lookup = pn.Lookup
		cfg.DefaultDelay = 100 * time.Millisecond
		crawlToEnd(t, cfg)

		for _, want := range []struct {
			host string
			gaps []time.Duration // start-to-start, in order
		}{
			// Each delay plus the scheduler's margin (2%, at least 5ms, at
			// most 20ms).
			{"crawl", []time.Duration{255, 255, 255, 255}}, // robots.txt, /, /1, /2, /3: Crawl-delay 0.25
			{"rate", []time.Duration{510, 510, 510}},       // Request-rate 2/1s
			{"plain", []time.Duration{105, 105}},           // default_delay
			{"busy", []time.Duration{105, 2000, 105}},      // 429 with Retry-After: 2 (a hold, no margin)
			{"down", []time.Duration{105, 200}},            // robots.txt retries: 100ms (the delay wins), then 200ms
		} {
			log := w.Host(want.host).Log()
			if len(log) != len(want.gaps)+1 {
				t.Errorf("%s: %d requests, want %d: %+v", want.host, len(log), len(want.gaps)+1, log)
				continue
			}
			for i, g := range want.gaps {
				gap := log[i+1].Start.Sub(log[i].Start)
				if gap < g*time.Millisecond || gap >= g*time.Millisecond+time.Millisecond {
					t.Errorf("%s: %s -> %s after %v, want exactly %dms", want.host, log[i].Path, log[i+1].Path, gap, g)
				}
			}
		}
	})
}
