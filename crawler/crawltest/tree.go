package crawltest

import (
	"fmt"
	"strings"
	"time"
)

// AddTree adds a host of n pages in a binary tree: "/" links /p/1 and
// /p/2, /p/i links /p/2i+1 and /p/2i+2, and every page also links the
// roots of the hosts named in cross. Each page takes think to serve.
func (w *Web) AddTree(name string, n int, robots string, think time.Duration, cross ...string) *Host {
	pages := map[string]*Page{"/robots.txt": {Body: robots, Header: map[string]string{"Content-Type": "text/plain"}}}
	for i := 0; i < n; i++ {
		path := "/"
		if i > 0 {
			path = fmt.Sprintf("/p/%d", i)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<html><head><title>%s page %d</title></head><body>", name, i)
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < n {
				fmt.Fprintf(&b, `<a href="/p/%d">child %d</a> `, c, c)
			}
		}
		for _, o := range cross {
			fmt.Fprintf(&b, `<a href="{{host:%s}}/">%s</a> `, o, o)
		}
		b.WriteString("</body></html>")
		pages[path] = &Page{Body: b.String(), Delay: think}
	}
	return w.AddHost(name, pages)
}

// TreePaths lists the page paths of a tree of n pages.
func TreePaths(n int) []string {
	out := []string{"/"}
	for i := 1; i < n; i++ {
		out = append(out, fmt.Sprintf("/p/%d", i))
	}
	return out
}
