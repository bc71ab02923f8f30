package urlnorm

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalise(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"HTTP://Example.COM/a", "http://example.com/a"},
		{"http://example.com", "http://example.com/"},
		{"http://example.com:/", "http://example.com/"},
		{"http://example.com:80/", "http://example.com/"},
		{"https://example.com:443/x", "https://example.com/x"},
		{"http://example.com:8080/x", "http://example.com:8080/x"},
		{"https://example.com:80/x", "https://example.com:80/x"},
		{"http://example.com./a", "http://example.com/a"},
		{"http://faß.de/", "http://xn--fa-hia.de/"},
		{"http://exämple.com/", "http://xn--exmple-cua.com/"},
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/a/../../b", "http://example.com/b"},
		{"http://example.com/a//b/", "http://example.com/a//b/"},
		{"http://example.com/a/", "http://example.com/a/"},
		{"http://example.com/%7Efoo/%41", "http://example.com/~foo/A"},
		{"http://example.com/a%2fb", "http://example.com/a%2Fb"},
		{"http://example.com/a%2Fb?x=%3d&y=%2f", "http://example.com/a%2Fb?x=%3D&y=%2F"},
		{"http://example.com/ツ", "http://example.com/%E3%83%84"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"http://example.com/p?q=a+b", "http://example.com/p?q=a+b"},
		{"http://example.com/p?", "http://example.com/p"},
		{"http://example.com/p#frag", "http://example.com/p"},
		{"http://example.com/P?Q=A", "http://example.com/P?Q=A"},
		{"http://[::1]:8080/x", "http://[::1]:8080/x"},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"},
		{"  http://example.com/x  ", "http://example.com/x"},
		{"http://example.com/100%", "http://example.com/100%25"},
		{"http://example.com/index.html", "http://example.com/index.html"},
	} {
		got, err := Normalise(c.in)
		if err != nil || got != c.want {
			t.Errorf("Normalise(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		again, _ := Normalise(got)
		if again != got {
			t.Errorf("not idempotent: %q -> %q -> %q", c.in, got, again)
		}
	}
}

func TestNormaliseRefuses(t *testing.T) {
	for _, c := range []struct {
		in   string
		want error
	}{
		{"ftp://example.com/", ErrScheme},
		{"javascript:alert(1)", ErrScheme},
		{"mailto:a@b", ErrScheme},
		{"/relative", ErrScheme},
		{"http:///nohost", ErrNoHost},
		{"http://user:pw@example.com/", ErrCredentials},
		{"http://example.com/" + string(make([]byte, MaxLength)), ErrTooLong},
	} {
		if _, err := Normalise(c.in); !errors.Is(err, c.want) {
			t.Errorf("Normalise(%.40q) error %v, want %v", c.in, err, c.want)
		}
	}
}

// TestNormaliseNoScheme: a host typed without a scheme (a seed written
// "127.0.0.1:8080/") is refused with a hint to add one; it was refused with
// net/url's "first path segment in URL cannot contain colon", or "not an
// http or https URL" alone. Other schemes get no such hint.
func TestNormaliseNoScheme(t *testing.T) {
	const hint = "add http:// or https://"
	for _, c := range []struct {
		in   string
		hint bool
	}{
		{"127.0.0.1:18555/", true},
		{"localhost:8080", true},
		{"localhost", true},
		{"example.com/a?b", true},
		{"www.example.org", true},
		{"[::1]:80/", false},
		{"mailto:a@b.example", false},
		{"javascript:alert(1)", false},
		{"/relative", false},
		{"//example.com/x", false},
		{"http:example.com", false},
	} {
		_, err := Normalise(c.in)
		if err == nil {
			t.Errorf("Normalise(%q) accepted", c.in)
			continue
		}
		if got := strings.Contains(err.Error(), hint); got != c.hint {
			t.Errorf("Normalise(%q): %v; hint %v, want %v", c.in, err, got, c.hint)
		}
		if c.hint && !errors.Is(err, ErrScheme) {
			t.Errorf("Normalise(%q): %v, want ErrScheme", c.in, err)
		}
	}
}

func TestResolve(t *testing.T) {
	base, _ := Parse("http://example.com/a/b/c?q")
	for _, c := range []struct{ ref, want string }{
		{"d", "http://example.com/a/b/d"},
		{"../d", "http://example.com/a/d"},
		{"/x#y", "http://example.com/x"},
		{"?z", "http://example.com/a/b/c?z"},
		{"//other.org/p", "http://other.org/p"},
		{"https://Other.org", "https://other.org/"},
	} {
		u, err := Resolve(base, c.ref)
		if err != nil || u.String() != c.want {
			t.Errorf("Resolve(%q) = %v, %v; want %q", c.ref, u, err, c.want)
		}
	}
}

func TestAuthorityOrigin(t *testing.T) {
	for _, c := range []struct{ in, auth, origin string }{
		{"http://example.com/a", "example.com", "http://example.com"},
		{"https://h:8443/?x", "h:8443", "https://h:8443"},
		{"http://[::1]:9/x", "[::1]:9", "http://[::1]:9"},
	} {
		if a, o := Authority(c.in), Origin(c.in); a != c.auth || o != c.origin {
			t.Errorf("%q: authority %q origin %q", c.in, a, o)
		}
	}
}

func FuzzNormalise(f *testing.F) {
	for _, s := range []string{"http://Example.COM:80/a/./b/../%7e?x=%2f#f", "https://faß.de", "http://[::1]:1/%zz", "http://h/a b/ツ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := Normalise(raw)
		if err != nil {
			return
		}
		again, err := Normalise(n)
		if err != nil || again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", raw, n, again, err)
		}
	})
}

func BenchmarkNormalise(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Normalise("HTTP://Example.com:80/a/./b/../c/%7efoo?x=1&y=%2f#frag")
	}
}

// FuzzPlainNormal: a URL isPlainNormal passes is one the full parse
// returns unchanged, so the shortcut changes no answer.
func FuzzPlainNormal(f *testing.F) {
	for _, s := range []string{"http://example.com/a", "https://h:8443/p/1?x=1&y=2", "http://127.0.0.1:40000/p/7",
		"http://h:80/", "http://h/a/../b", "http://h/?", "http://h.:1/", "https://xn--fa-hia.de/~a_b-c.d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !isPlainNormal(raw) {
			return
		}
		u, err := Parse(raw)
		if err != nil || u.String() != raw {
			t.Fatalf("isPlainNormal(%q), but the parse gives %v, %v", raw, u, err)
		}
	})
}

// TestPlainNormal: the URLs a crawl mostly meets take the shortcut, and
// near misses do not (their normal form differs).
func TestPlainNormal(t *testing.T) {
	for _, c := range []struct {
		in    string
		plain bool
	}{
		{"http://127.0.0.1:40000/p/7", true},
		{"https://example.com/a/b-c_d.html?id=42&x=y", true},
		{"http://example.com/", true},
		{"http://example.com", false},
		{"http://Example.com/", false},
		{"http://example.com:80/", false},
		{"https://example.com:443/", false},
		{"http://example.com:/", false},
		{"http://example.com./", false},
		{"http://example.com/a/./b", false},
		{"http://example.com/a/..", false},
		{"http://example.com/p?", false},
		{"http://example.com/p#f", false},
		{"http://example.com/%7e", false},
		{"http://u@example.com/", false},
		{"HTTP://example.com/", false},
		{" http://example.com/", false},
	} {
		if got := isPlainNormal(c.in); got != c.plain {
			t.Errorf("isPlainNormal(%q) = %v, want %v", c.in, got, c.plain)
		}
		n, err := Normalise(c.in)
		if c.plain && (err != nil || n != c.in) {
			t.Errorf("Normalise(%q) = %q, %v; want it unchanged", c.in, n, err)
		}
	}
}

func BenchmarkNormalisePlain(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Normalise("http://127.0.0.1:40000/p/15")
	}
}
