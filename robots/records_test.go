package robots

import (
	"reflect"
	"testing"
	"time"
)

func TestCrawlDelay(t *testing.T) {
	for _, c := range []struct {
		name   string
		robots string
		agent  string
		want   time.Duration
		ok     bool
	}{
		{"integer", "User-agent: *\nCrawl-delay: 5\n", "a", 5 * time.Second, true},
		{"fractional", "User-agent: *\nCrawl-delay: 0.5\n", "a", 500 * time.Millisecond, true},
		{"zero", "User-agent: *\nCrawl-delay: 0\n", "a", 0, true},
		{"negative ignored", "User-agent: *\nCrawl-delay: -1\n", "a", 0, false},
		{"NaN ignored", "User-agent: *\nCrawl-delay: NaN\n", "a", 0, false},
		{"text ignored", "User-agent: *\nCrawl-delay: soon\n", "a", 0, false},
		{"trailing words", "User-agent: *\nCrawl-delay: 2 seconds\n", "a", 2 * time.Second, true},
		{"huge capped", "User-agent: *\nCrawl-delay: 1e300\n", "a", maxDelay, true},
		{"none", "User-agent: *\nDisallow: /\n", "a", 0, false},
		{"before any agent ignored", "Crawl-delay: 5\nUser-agent: *\nDisallow: /\n", "a", 0, false},
		{"specific group wins", "User-agent: *\nCrawl-delay: 9\nDisallow: /x\nUser-agent: FooBot\nCrawl-delay: 2\n", "FooBot", 2 * time.Second, true},
		{"delay lines do not split groups: largest applies", "User-agent: *\nCrawl-delay: 9\n\nUser-agent: FooBot\nCrawl-delay: 2\n", "FooBot", 9 * time.Second, true},
		{"falls back to global", "User-agent: *\nCrawl-delay: 9\nUser-agent: FooBot\nDisallow: /x\n", "FooBot", 9 * time.Second, true},
		{"not another agent's", "User-agent: BarBot\nCrawl-delay: 9\n", "FooBot", 0, false},
		{"merged groups take largest", "User-agent: FooBot\nCrawl-delay: 2\nUser-agent: x\nDisallow: /\nUser-agent: FooBot\nCrawl-delay: 4\n", "FooBot", 4 * time.Second, true},
		{"shared by agents of a group", "User-agent: a\nUser-agent: FooBot\nCrawl-delay: 3\nDisallow: /\n", "FooBot", 3 * time.Second, true},
		{"misspelt field", "User-agent: *\ncrawldelay: 7\n", "a", 7 * time.Second, true},
	} {
		got, ok := Parse([]byte(c.robots)).CrawlDelay(c.agent)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: CrawlDelay = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestRequestRate(t *testing.T) {
	for _, c := range []struct {
		value string
		want  Rate
		ok    bool
	}{
		{"1/5", Rate{Requests: 1, Per: 5 * time.Second}, true},
		{"1/10s", Rate{Requests: 1, Per: 10 * time.Second}, true},
		{"10/1m", Rate{Requests: 10, Per: time.Minute}, true},
		{"3/1h", Rate{Requests: 3, Per: time.Hour}, true},
		{"100/1d", Rate{Requests: 100, Per: 24 * time.Hour}, true},
		{"1 / 10 s", Rate{Requests: 1, Per: 10 * time.Second}, true},
		{"1/0.5", Rate{Requests: 1, Per: 500 * time.Millisecond}, true},
		{"1/10s 0800-1700", Rate{Requests: 1, Per: 10 * time.Second, Window: Window{8 * time.Hour, 17 * time.Hour}}, true},
		{"1/10s 2200-0600", Rate{Requests: 1, Per: 10 * time.Second, Window: Window{22 * time.Hour, 6 * time.Hour}}, true},
		{"0/5", Rate{}, false},
		{"1/0", Rate{}, false},
		{"-1/5", Rate{}, false},
		{"1/-5", Rate{}, false},
		{"5", Rate{}, false},
		{"a/b", Rate{}, false},
		{"1/5x", Rate{}, false},
		{"1/10s 25:00-1700", Rate{}, false},
		{"1/10s morning", Rate{}, false},
	} {
		got, ok := Parse([]byte("User-agent: *\nRequest-rate: " + c.value + "\n")).RequestRate("a")
		if got != c.want || ok != c.ok {
			t.Errorf("Request-rate %q = %+v, %v; want %+v, %v", c.value, got, ok, c.want, c.ok)
		}
	}
}

func TestRequestRateStrictestAndFallback(t *testing.T) {
	r := Parse([]byte("User-agent: *\nRequest-rate: 1/1\nDisallow: /x\n\nUser-agent: FooBot\nRequest-rate: 1/2\nRequest-rate: 1/30 0000-0600\n"))
	got, ok := r.RequestRate("FooBot")
	if !ok || got.Interval() != 30*time.Second || got.Window.IsZero() {
		t.Errorf("strictest rate = %+v, %v", got, ok)
	}
	if n := len(r.RequestRates("FooBot")); n != 2 {
		t.Errorf("RequestRates: %d rates, want 2", n)
	}
	if got, _ := r.RequestRate("BarBot"); got.Interval() != time.Second {
		t.Errorf("global fallback = %+v", got)
	}
}

func TestWindowContains(t *testing.T) {
	day := Window{8 * time.Hour, 17 * time.Hour}
	night := Window{22 * time.Hour, 6 * time.Hour}
	at := func(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.UTC) }
	for _, c := range []struct {
		w    Window
		t    time.Time
		want bool
	}{
		{day, at(8, 0), true}, {day, at(16, 59), true}, {day, at(17, 0), false}, {day, at(7, 59), false},
		{night, at(23, 0), true}, {night, at(5, 0), true}, {night, at(12, 0), false},
		{Window{}, at(3, 0), true},
		{day, time.Date(2026, 1, 1, 16, 0, 0, 0, time.FixedZone("x", -3*3600)), false}, // 19:00 UTC
	} {
		if got := c.w.Contains(c.t); got != c.want {
			t.Errorf("%+v.Contains(%v) = %v, want %v", c.w, c.t, got, c.want)
		}
	}
}

func TestSitemaps(t *testing.T) {
	body := "Sitemap: http://e/a.xml\nUser-agent: *\nsitemap: http://e/b.xml\nDisallow: /\n" +
		"Site-map: http://e/c.xml\nSitemap: http://e/a.xml\nSitemap:\nSitemap: /relative.xml\n"
	got := Parse([]byte(body)).Sitemaps()
	want := []string{"http://e/a.xml", "http://e/b.xml", "http://e/c.xml", "/relative.xml"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sitemaps() = %q, want %q", got, want)
	}
	// The sitemap line between agents must not split them.
	if Parse([]byte(body)).Allowed("x", "/y") {
		t.Error("rules lost")
	}
}
