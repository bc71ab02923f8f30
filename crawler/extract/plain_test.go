package extract

import (
	"net/url"
	"testing"
)

// TestResolvePlain: the hrefs most pages hold resolve without a parse,
// to what resolve gives; the others are left to resolve.
func TestResolvePlain(t *testing.T) {
	base := mustURL(t, "http://127.0.0.1:40000/a/b")
	prefix := plainPrefix(base)
	for _, c := range []struct {
		href  string
		plain bool
		want  string
	}{
		{"/p/15", true, "http://127.0.0.1:40000/p/15"},
		{"/p/15?x=1&y=z", true, "http://127.0.0.1:40000/p/15?x=1&y=z"},
		{"http://127.0.0.1:40001/", true, "http://127.0.0.1:40001/"},
		{"https://Example.com/A_b~c.html", true, "https://Example.com/A_b~c.html"},
		{"/", true, "http://127.0.0.1:40000/"},
		{"//other.example/x", false, "http://other.example/x"},
		{"/a/../b", false, "http://127.0.0.1:40000/b"},
		{"/p?", false, "http://127.0.0.1:40000/p?"},
		{"/p q", false, "http://127.0.0.1:40000/p%20q"},
		{"c", false, "http://127.0.0.1:40000/a/c"},
		{"HTTP://h/x", false, "http://h/x"},
		{"http://h", false, "http://h"},
		{"http://h:/x", false, "http://h:/x"},
	} {
		u, reason, ok := resolvePlain(prefix, c.href)
		if ok != c.plain || ok && (u != c.want || reason != "") {
			t.Errorf("resolvePlain(%q) = %q %q %v, want %q plain %v", c.href, u, reason, ok, c.want, c.plain)
		}
		if u, reason := resolve(base, c.href); u != c.want || reason != "" {
			t.Errorf("resolve(%q) = %q %q, want %q", c.href, u, reason, c.want)
		}
	}
	for _, b := range []string{"http://u@h/", "ftp://h/", "mailto:x@y"} {
		if p := plainPrefix(mustURL(t, b)); p != "" {
			t.Errorf("plainPrefix(%q) = %q, want none", b, p)
		}
	}
}

// FuzzResolvePlain: whatever resolvePlain answers, resolve answers too.
func FuzzResolvePlain(f *testing.F) {
	for _, c := range [][2]string{{"http://127.0.0.1:40000/a/b", "/p/15"}, {"https://h.example/", "http://x:1/a?b=c&d"},
		{"http://h/", "/a/./b"}, {"http://[::1]:8/", "/x"}, {"http://h%41/", "/x"}, {"https://h/", "https://H.example:443/"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, rawBase, href string) {
		base, err := url.Parse(rawBase)
		if err != nil {
			return
		}
		h := withoutFragment(cleanHref(href))
		u, reason, ok := resolvePlain(plainPrefix(base), h)
		if !ok {
			return
		}
		if wu, wr := resolve(base, h); u != wu || reason != wr {
			t.Fatalf("base %q href %q: resolvePlain %q %q, resolve %q %q", rawBase, h, u, reason, wu, wr)
		}
	})
}
