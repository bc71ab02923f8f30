package crawltest

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// AddCalendar adds a host with an endless calendar, the classic crawler
// trap: "/" links /cal (the month of today), and every month page
// /cal?month=YYYY-MM links the previous and the next month, without end
// in either direction. today is the month /cal shows.
func (w *Web) AddCalendar(name string, today time.Time) *Host {
	h := w.AddHost(name, map[string]*Page{
		"/robots.txt": {Status: 404},
		"/":           {Body: `<title>Club</title><a href="/cal">Events</a> <a href="/about">About</a>`},
		"/about":      {Body: `<title>About</title>`},
	})
	month := func(t time.Time) *Page {
		prev, next := t.AddDate(0, -1, 0).Format("2006-01"), t.AddDate(0, 1, 0).Format("2006-01")
		return &Page{Body: fmt.Sprintf(`<title>Events %s</title><a href="/cal?month=%s">previous</a> <a href="/cal?month=%s">next</a> <a href="/">home</a>`,
			t.Format("January 2006"), prev, next)}
	}
	first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	h.gen = func(key string) *Page {
		u, err := url.Parse(key)
		if err != nil || u.Path != "/cal" {
			return nil
		}
		m := u.Query().Get("month")
		if m == "" {
			return month(first)
		}
		t, err := time.Parse("2006-01", m)
		if err != nil {
			return nil
		}
		return month(t)
	}
	return h
}

// AddBlog adds an ordinary blog that trap guards must leave alone: "/"
// and its pages /?page=2 to /?page=pages (each linking the next), a
// sidebar on every page with the monthly archives /YYYY/MM/ of the months
// years before today, each archive linking its previous and next month
// and its post /YYYY/MM/DD/post-N. Paths returns every page it serves.
func (w *Web) AddBlog(name string, today time.Time, months, pages int) (*Host, []string) {
	first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	var sidebar strings.Builder
	var paths []string
	site := map[string]*Page{"/robots.txt": {Status: 404}}
	for i := 0; i < months; i++ {
		m := first.AddDate(0, -i, 0)
		arch, post := m.Format("/2006/01/"), fmt.Sprintf("%s17/post-%d", m.Format("/2006/01/"), i)
		fmt.Fprintf(&sidebar, `<li><a href="%s">%s</a>`, arch, m.Format("January 2006"))
		site[arch] = &Page{Body: fmt.Sprintf(`<title>%s</title><a href="%s">post</a> <a href="%s">older</a> <a href="%s">newer</a>`,
			m.Format("January 2006"), post, m.AddDate(0, -1, 0).Format("/2006/01/"), m.AddDate(0, 1, 0).Format("/2006/01/"))}
		site[post] = &Page{Body: fmt.Sprintf(`<title>Post %d</title><a href="%s">archive</a>`, i, arch)}
		paths = append(paths, arch, post)
	}
	for n := 1; n <= pages; n++ {
		path := fmt.Sprintf("/?page=%d", n)
		if n == 1 {
			path = "/"
		}
		next := ""
		if n < pages {
			next = fmt.Sprintf(`<a href="/?page=%d">older posts</a>`, n+1)
		}
		site[path] = &Page{Body: fmt.Sprintf(`<title>Blog page %d</title>%s<ul>%s</ul>`, n, next, sidebar.String())}
		paths = append(paths, path)
	}
	return w.AddHost(name, site), paths
}
