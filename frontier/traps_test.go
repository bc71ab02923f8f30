package frontier

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

var today = time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)

func TestURLDates(t *testing.T) {
	for _, c := range []struct {
		url  string
		want []string
	}{
		{"http://h/2024/05/17/", []string{"2024/05/17"}},
		{"http://h/blog/2025/11/", []string{"2025/11"}},
		{"http://h/2025/11/17/my-post", []string{"2025/11/17"}},
		{"http://h/calendar?month=2031-07", []string{"2031-07"}},
		{"http://h/events/2031-07-04.html", []string{"2031-07-04"}},
		{"http://h/e?date=2031-07-04&view=day", []string{"2031-07-04"}},
		{"http://h/e?date=20310704", []string{"20310704"}},
		{"http://h/e?ym=203107", nil}, // compact dates only under a date-like name
		{"http://h/e?year=2040&month=3", []string{"year=2040"}},
		{"http://h/e?year=2040", []string{"year=2040"}},
		{"http://h/product/2040", nil},     // a bare number is no year
		{"http://h/item?id=20240517", nil}, // nor an id that looks like a date
		{"http://h/2024/13/", nil},
		{"http://h/d/2031-02-30", nil},
		{"http://h/v/1.2024-05", []string{"2024-05"}},
		{"http://h/sku/12024-05", nil},
		{"http://h/?page=2", nil},
	} {
		_, path, query := urlParts(c.url)
		var got []string
		dates, _ := urlDates(path, query)
		for _, d := range dates {
			got = append(got, d.text)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("urlDates(%s) = %q, want %q", c.url, got, c.want)
		}
	}
}

func TestDateShape(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"http://h/cal?month=2031-07", "/cal?month=D"},
		{"http://h/cal?month=2031-07&view=2", "/cal?month=D&view=2"},
		{"http://h/2025/11/17/post-12", "/D/post-12"},
		{"http://h/2025/11/page/2", "/D/page/2"},
		{"http://h/ev/day-2025-11-17.html", "/ev/day-D.html"},
		{"http://h/e?year=2040&month=3&x=1", "/e?year=D&month=D&x=1"},
		{"http://h/e?when=20310704", "/e?when=20310704"},
		{"http://h/e?date=20310704", "/e?date=D"},
		{"http://h/", "/"},
	} {
		_, p, q := urlParts(c.url)
		if _, got := urlDates(p, q); got != c.want {
			t.Errorf("date shape of %s = %q, want %q", c.url, got, c.want)
		}
	}
}

// TestTrapGuards runs the default guards on trap URLs, which must be
// refused with a "trap: " reason, and on an ordinary site, which must not.
func TestTrapGuards(t *testing.T) {
	long := strings.Repeat("x", 1020)
	for _, c := range []struct {
		url, parent string
		reason      string // "" = admitted
	}{
		// Dates too far ahead, however they are written.
		{"http://h/2031/07/04/", "http://h/", "date 2031/07/04 more than 366 days ahead"},
		{"http://h/calendar?month=2031-07", "http://h/", "date 2031-07 more than 366 days ahead"},
		{"http://h/e?date=2031-07-04", "", "more than 366 days ahead"},
		{"http://h/e?date=20310704", "", "more than 366 days ahead"},
		{"http://h/e?year=2040&month=3", "", "date year=2040 more than 366 days ahead"},
		{"http://h/cal?month=2027-11", "http://h/", ""}, // within a year
		{"http://h/cal?month=2028-01", "http://h/", "ahead"},
		// Calendar navigation: same shape, another date, too far back.
		{"http://h/cal?month=2025-10", "http://h/cal?month=2025-11", "trap: calendar step to 2025-10, more than 366 days from today"},
		{"http://h/cal?month=2025-12", "http://h/cal?month=2026-01", ""},
		{"http://h/d/2020-01-01", "http://h/d/2020-01-02", "calendar step"},
		{"http://h/2019/03/", "http://h/2019/04/", "calendar step"},
		// Session ids.
		{"http://h/shop;jsessionid=0A1B2C3D4E5F6A7B8C9D", "", "trap: session id jsessionid in the URL"},
		{"http://h/a?PHPSESSID=9f86d081884c7d659a2feaa0c55ad015", "", "session id phpsessid"},
		{"http://h/a?x=1&sid=b6589fc6ab0dc82cf12099d1c2d40ab9", "", "session id sid"},
		{"http://h/a?sessionid=abcdef0123456789xyz", "", "session id sessionid"},
		{"http://h/a?ASPSESSIONIDQQGGQGPG=0123456789ABCDEFGHIJ", "", "session id aspsessionidqqggqgpg"},
		{"http://h/a?sid=3", "", ""},
		{"http://h/a?sid=section-overview", "", ""},
		{"http://h/x;a=1;sessid=0A1B2C3D4E5F6A7B8C9D/y", "", "session id sessid"},
		{"http://h/x;a=1/y;b=2?sid=3&zenid=0A1B2C3D4E5F6A7B8C9D", "", "session id zenid"},
		{"http://h/x;sid=3/y;b=2?z=0A1B2C3D4E5F6A7B8C9D", "", ""},
		// Ever-growing queries.
		{"http://h/s?" + params(17), "", "trap: more than 16 query parameters"},
		{"http://h/s?" + params(16), "", ""},
		{"http://h/s?a=1&b=2&a=1", "", `trap: query parameter "a=1" repeated`},
		{"http://h/s?tag=a&tag=b&tag=c&tag=d", "", `trap: query parameter "tag" occurs more than 3 times`},
		{"http://h/s?tag=a&tag=b&tag=c", "", ""},
		{"http://h/s?q=" + long + "yyyy", "", "trap: query longer than 1024 bytes"},
		// An ordinary blog and shop.
		{"http://h/2025/11/", "http://h/", ""},
		{"http://h/2015/03/", "http://h/", ""},    // an old archive, linked from the sidebar
		{"http://h/2015/03/", "http://h/p/9", ""}, // or from a post
		{"http://h/2015/03/17/hello-world", "http://h/2015/03/", ""},
		{"http://h/2015/03/page/3", "http://h/2015/03/page/2", ""}, // paging within an old month
		{"http://h/?page=50", "http://h/?page=49", ""},
		{"http://h/product/2040?color=red&size=2", "http://h/product/2039", ""},
		{"http://h/2019/03/17/12345/", "http://h/2019/03/18/12346/", ""}, // dated articles with ids
		{"http://h/search?q=a+b&page=2&sort=date", "", ""},
	} {
		reason := admitOne(t, DefaultLimits(), Candidate{URL: c.url, Parent: c.parent, Via: "link", Depth: 1})
		if c.reason == "" && reason != "" || c.reason != "" && !strings.Contains(reason, c.reason) ||
			c.reason != "" && !strings.HasPrefix(reason, "trap: ") {
			t.Errorf("%.90s (parent %s): got %q, want %q", c.url, c.parent, reason, c.reason)
		}
	}
}

func params(n int) string {
	var p []string
	for i := range n {
		p = append(p, fmt.Sprintf("p%d=%d", i, i))
	}
	return strings.Join(p, "&")
}

// admitOne admits c into a fresh state file and returns the reason it was
// refused, "" when it was queued.
func admitOne(t *testing.T, l Limits, c Candidate) string {
	t.Helper()
	scope, _ := hostScope([]string{"h"})
	a := NewAdmitter(scope, l, 0, func() time.Time { return today })
	d := mustDB(t)
	var rec *storage.URLRecord
	d.Update(func(tx *storage.Tx) error {
		if _, err := a.Admit(tx, c); err != nil {
			t.Fatal(err)
		}
		rec, _ = tx.GetURL(c.URL)
		return nil
	})
	if rec == nil {
		t.Fatalf("%s not recorded", c.URL)
	}
	if rec.State == storage.Queued {
		return ""
	}
	return rec.Error
}

// TestDateShapeBudget: dated URLs of one pattern are capped per host;
// other patterns, other hosts and undated URLs are not counted.
func TestDateShapeBudget(t *testing.T) {
	scope, _ := hostScope([]string{"h", "g"})
	l := DefaultLimits()
	l.MaxPerDateShape = 20
	a := NewAdmitter(scope, l, 0, func() time.Time { return today })
	d := mustDB(t)
	admit := func(url string) bool {
		var q bool
		d.Update(func(tx *storage.Tx) error {
			var err error
			q, err = a.Admit(tx, Candidate{URL: url, Parent: "http://h/", Via: "link", Depth: 1})
			return err
		})
		return q
	}
	day := func(host string, i int) string {
		return fmt.Sprintf("http://%s/day/%s", host, today.AddDate(0, 0, -i).Format("2006-01-02"))
	}
	for i := range 20 {
		if !admit(day("h", i)) {
			t.Fatalf("dated URL %d refused under the budget", i)
		}
	}
	if admit(day("h", 20)) {
		t.Error("21st dated URL of one pattern admitted")
	}
	if !admit(day("g", 20)) || !admit(fmt.Sprintf("http://h/week/%s", today.Format("2006-01-02"))) {
		t.Error("another host or pattern was refused")
	}
	for i := range 50 {
		if !admit(fmt.Sprintf("http://h/?page=%d", i)) {
			t.Fatalf("undated URL %d refused", i)
		}
	}
	d.View(func(tx *storage.Tx) error {
		r, _ := tx.GetURL(day("h", 20))
		if r == nil || !strings.HasPrefix(r.Error, "trap: 20 dated URLs of the pattern /day/D") {
			t.Errorf("record %+v", r)
		}
		return nil
	})
}

// TestDefaultsLeaveABlogAlone admits 20 years of monthly archives, a post
// a day for a year and 50 list pages with the default limits.
func TestDefaultsLeaveABlogAlone(t *testing.T) {
	scope, _ := hostScope([]string{"h"})
	a := NewAdmitter(scope, DefaultLimits(), 0, func() time.Time { return today })
	d := mustDB(t)
	var urls []string
	for m := range 240 {
		urls = append(urls, today.AddDate(0, -m, 0).Format("http://h/2006/01/"))
	}
	for i := range 366 {
		urls = append(urls, today.AddDate(0, 0, -i).Format("http://h/2006/01/02/")+fmt.Sprintf("post-%d", i))
	}
	for p := 2; p <= 50; p++ {
		urls = append(urls, fmt.Sprintf("http://h/?page=%d", p))
	}
	d.Update(func(tx *storage.Tx) error {
		for _, u := range urls {
			if q, err := a.Admit(tx, Candidate{URL: u, Parent: "http://h/", Via: "link", Depth: 1}); err != nil || !q {
				r, _ := tx.GetURL(u)
				t.Errorf("%s refused: %+v", u, r)
			}
		}
		return nil
	})
}

func TestShapeCounts(t *testing.T) {
	s := newShapeCounts()
	for i := range 1000 {
		for range i % 7 {
			s.add(fmt.Sprint("key", i))
		}
	}
	for i := range 1000 {
		if got := s.get(fmt.Sprint("key", i)); got != i%7 {
			t.Fatalf("key%d: %d, want %d", i, got, i%7)
		}
	}
}

// FuzzURLDates: reading dates never panics, and a date shape carries no
// date any more (so it is its own shape).
func FuzzURLDates(f *testing.F) {
	f.Add("/2024/05/17/x", "month=2031-07&year=2040&m=3&date=20310704")
	f.Add("/ev/day-2025-11-17.html;jsessionid=0A1B2C3D4E5F6A7B8C9D", "a=1&a=1")
	f.Fuzz(func(t *testing.T, path, query string) {
		// A path as urlParts gives it never holds '?': the query starts there.
		path = strings.ReplaceAll(path, "?", "%3F")
		_, shape := urlDates(path, query)
		p, q, _ := strings.Cut(shape, "?")
		if dates, again := urlDates(p, q); len(dates) != 0 || query == "" && again != shape {
			t.Fatalf("shape %q of %q?%q has dates %v or another shape %q", shape, path, query, dates, again)
		}
		DefaultLimits().queryTrap(query)
		sessionID(path, query)
	})
}

// BenchmarkTrapGuards runs the URL-only guards (no storage) on a mix of
// ordinary and dated URLs: the work Admit adds per discovered link.
func BenchmarkTrapGuards(b *testing.B) {
	l := DefaultLimits()
	urls := []string{
		"http://h/", "http://h/products/shoes/12345?color=red&size=42", "http://h/2025/11/17/a-post-title",
		"http://h/cal?month=2026-10", "http://h/search?q=crawler+traps&page=3&sort=date&lang=en",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		u := urls[i%len(urls)]
		host, path, query := urlParts(u)
		if l.queryTrap(query) != "" || sessionID(path, query) != "" {
			b.Fatal(u)
		}
		if dates, shape := urlDates(path, query); len(dates) > 0 {
			if r := l.dateTrap(dates, shape, "http://h/cal?month=2026-11", host, today); r != "" {
				b.Fatal(r)
			}
		}
	}
}
