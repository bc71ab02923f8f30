package crawler

import (
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// TestDoneHostHangsUp: a crawl keeps one connection to a host for as long
// as it has work there (every request on it), and closes it as soon as it
// is done with the host, not when the whole crawl ends: the server of a
// one-page site sees its connection end before a larger site's crawl has
// finished. A page whose links give its host more work does not close
// it (the larger site's root is its only queued URL when asked).
func TestDoneHostHangsUp(t *testing.T) {
	w := crawltest.NewWeb()
	defer w.Close()
	small := w.AddTree("small", 1, "User-agent: *\nAllow: /\n", 0)
	big := w.AddTree("big", 7, "User-agent: *\nAllow: /\n", 0)
	cfg := testConfig(small.URL("/"), big.URL("/"))
	cfg.DefaultDelay = 100 * time.Millisecond
	crawlToEnd(t, cfg)
	for _, h := range []*crawltest.Host{small, big} {
		log := h.Log()
		if want := map[*crawltest.Host]int{small: 2, big: 8}[h]; len(log) != want {
			t.Fatalf("%s: %d requests, want %d (robots.txt and every page)", h.Name, len(log), want)
		}
		for _, r := range log[1:] {
			if r.Conn != log[0].Conn {
				t.Errorf("%s: %s on connection %s, %s on %s: want one connection while the host has work",
					h.Name, log[0].Path, log[0].Conn, r.Path, r.Conn)
			}
		}
	}
	closed := small.Closed()
	bigLog := big.Log()
	last := bigLog[len(bigLog)-1].Arrived
	if len(closed) != 1 || !closed[0].Before(last) {
		t.Errorf("small's server saw connections end at %v; want one, before big's last request (%v)", closed, last)
	}
}
