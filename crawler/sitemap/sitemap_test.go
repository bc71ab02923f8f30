package sitemap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func parseAll(t testing.TB, r io.Reader, opts Options) ([]Entry, Result, error) {
	t.Helper()
	var got []Entry
	res, err := Parse(r, opts, func(e Entry) { got = append(got, e) })
	return got, res, err
}

func urls(es []Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.URL)
	}
	return out
}

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestFixtures(t *testing.T) {
	for _, c := range []struct {
		file    string
		format  Format
		urls    []string
		invalid int
		err     bool
	}{
		{"urlset.xml", URLSet, []string{"https://example.org/a?x=1&y=2", "https://example.org/b", "https://example.org/c", "https://example.org/d&amp;e"}, 2, false},
		{"urlset-https-ns.xml", URLSet, []string{"https://example.org/a"}, 0, false},
		{"urlset-google.xml", URLSet, []string{"https://example.org/a"}, 0, false},
		{"urlset-no-ns.xml", URLSet, []string{"https://example.org/a", "https://example.org/b"}, 0, false},
		{"urlset-wrong-ns.xml", Unknown, []string{}, 0, true},
		{"index.xml", Index, []string{"https://example.org/sitemap-1.xml.gz", "https://example.org/sitemap-2.txt"}, 0, false},
		{"broken.xml", URLSet, []string{"https://example.org/1", "https://example.org/2"}, 0, true},
		{"text-crlf.txt", Text, []string{"https://example.org/1", "https://example.org/2", "https://example.org/3"}, 2, false},
		{"bom.xml", URLSet, []string{"https://example.org/bom"}, 0, false},
		{"latin1.xml", URLSet, []string{"https://example.org/café"}, 0, false},
		{"rss.xml", RSS, []string{"https://example.org/news/1", "https://example.org/news/2"}, 0, false},
		{"atom.xml", Atom, []string{"https://example.org/a", "https://example.org/b"}, 1, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			for _, zipped := range []bool{false, true} {
				in := raw
				if zipped {
					in = gz(t, raw)
				}
				got, res, err := parseAll(t, bytes.NewReader(in), Options{})
				if (err != nil) != c.err {
					t.Errorf("gzip=%v: error %v, want error %v", zipped, err, c.err)
				}
				if !reflect.DeepEqual(urls(got), c.urls) || res.Format != c.format || res.Invalid != c.invalid || res.Gzip != zipped {
					t.Errorf("gzip=%v: %q %v invalid=%d gzip=%v; want %q %v invalid=%d", zipped, urls(got), res.Format, res.Invalid, res.Gzip, c.urls, c.format, c.invalid)
				}
			}
		})
	}
}

func TestLastmod(t *testing.T) {
	for _, c := range []struct {
		file string
		want []time.Time
	}{
		{"urlset.xml", []time.Time{time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 4, 6, 7, 0, time.UTC), {}, {}}},
		{"rss.xml", []time.Time{time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), time.Date(2026, 3, 3, 11, 0, 0, 0, time.UTC)}},
		{"atom.xml", []time.Time{time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC), time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)}},
		{"index.xml", []time.Time{time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), {}}},
	} {
		f, _ := os.Open("testdata/" + c.file)
		got, _, _ := parseAll(t, f, Options{})
		f.Close()
		for i, e := range got {
			if !e.Lastmod.Equal(c.want[i]) {
				t.Errorf("%s entry %d lastmod %v, want %v", c.file, i, e.Lastmod, c.want[i])
			}
		}
	}
}

func bigURLSet(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<url><loc>https://example.org/page/%d</loc><lastmod>2026-01-02</lastmod></url>\n", i)
	}
	b.WriteString("</urlset>")
	return b.Bytes()
}

func TestEntryLimit(t *testing.T) {
	got, res, err := parseAll(t, bytes.NewReader(bigURLSet(60000)), Options{})
	if err != nil || len(got) != MaxEntries || res.Truncated == "" || got[MaxEntries-1].URL != "https://example.org/page/49999" {
		t.Errorf("60,000 entries: kept %d, truncated %q, err %v", len(got), res.Truncated, err)
	}
	var text bytes.Buffer
	for i := 0; i < 60000; i++ {
		fmt.Fprintf(&text, "https://example.org/%d\n", i)
	}
	got, res, _ = parseAll(t, &text, Options{})
	if len(got) != MaxEntries || res.Truncated == "" {
		t.Errorf("60,000 text lines: kept %d, truncated %q", len(got), res.Truncated)
	}
}

// zeros is an endless stream.
type zeros struct{}

var spaces = bytes.Repeat([]byte(" "), 64<<10)

func (zeros) Read(p []byte) (int, error) {
	return copy(p, spaces), nil
}

func TestByteLimitAndBombs(t *testing.T) {
	// A gzip bomb: 20 MiB of white space inside a valid urlset compresses
	// to about 20 kB. Parsing stops at the limit, measured decompressed
	// (8 MiB here to keep the race-detector run short; the default limit is
	// checked below on a plain stream).
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zw.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/first</loc></url>`))
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 20; i++ {
		zw.Write(chunk)
	}
	zw.Write([]byte(`<url><loc>https://example.org/never</loc></url></urlset>`))
	zw.Close()
	start := time.Now()
	got, res, err := parseAll(t, &bomb, Options{MaxBytes: 8 << 20})
	if err != nil || !reflect.DeepEqual(urls(got), []string{"https://example.org/first"}) || res.Truncated == "" || res.Bytes != 8<<20 || !res.Gzip {
		t.Errorf("gzip bomb: %q bytes=%d truncated=%q err=%v", urls(got), res.Bytes, res.Truncated, err)
	}
	t.Logf("gzip bomb stopped after %d bytes in %v", res.Bytes, time.Since(start))

	// An endless plain file stops at the default limit, 52,428,800 bytes.
	got, res, err = parseAll(t, io.MultiReader(strings.NewReader("https://example.org/x\n"), zeros{}), Options{})
	if err != nil || len(got) != 1 || res.Bytes != MaxBytes || res.Truncated == "" {
		t.Errorf("endless text: %d entries, %d bytes, %q, %v", len(got), res.Bytes, res.Truncated, err)
	}
	// A file of exactly the limit is not truncated.
	exact := bigURLSet(10)
	_, res, _ = parseAll(t, bytes.NewReader(exact), Options{MaxBytes: int64(len(exact))})
	if res.Truncated != "" {
		t.Errorf("file of exactly MaxBytes reported truncated: %q", res.Truncated)
	}
}

func TestNotASitemap(t *testing.T) {
	for _, in := range []string{"<html><body>hello</body></html>", "<?xml version='1.0'?>", "", "\x1f\x8bnot gzip"} {
		got, _, err := parseAll(t, strings.NewReader(in), Options{})
		if len(got) != 0 {
			t.Errorf("%q: entries %q", in, urls(got))
		}
		_ = err
	}
	if _, _, err := parseAll(t, strings.NewReader("<html></html>"), Options{}); err == nil {
		t.Error("an HTML page must be an error")
	}
}

func TestParseDate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-01-02", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"2026-01", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-01-02T03:04Z", time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)},
		{"2026-01-02T03:04:05.5+02:00", time.Date(2026, 1, 2, 1, 4, 5, 5e8, time.UTC)},
		{"Mon, 02 Mar 2026 10:00:00 +0000", time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)},
		{"2 Mar 2026 10:00:00 GMT", time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)},
		{"yesterday", time.Time{}},
	} {
		if got := ParseDate(c.in); !got.Equal(c.want) {
			t.Errorf("ParseDate(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func FuzzSitemap(f *testing.F) {
	for _, name := range []string{"urlset.xml", "index.xml", "rss.xml", "atom.xml", "text-crlf.txt", "broken.xml"} {
		b, _ := os.ReadFile("testdata/" + name)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{MaxEntries: 100, MaxBytes: 1 << 16}
		n := 0
		res, _ := Parse(bytes.NewReader(data), opts, func(e Entry) {
			n++
			if !absoluteHTTP(e.URL) || len(e.URL) > MaxURLLength || e.URL != strings.TrimSpace(e.URL) {
				t.Fatalf("bad entry %q", e.URL)
			}
		})
		if n != res.Entries || n > opts.MaxEntries || res.Bytes > opts.MaxBytes {
			t.Fatalf("bounds: %d entries (result %d), %d bytes", n, res.Entries, res.Bytes)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	plain := bigURLSet(50000)
	zipped := gz(b, plain)
	for _, c := range []struct {
		name string
		data []byte
	}{{"plain", plain}, {"gzip", zipped}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				Parse(bytes.NewReader(c.data), Options{}, func(Entry) { n++ })
				if n != 50000 {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}

// TestChangefreq: a urlset entry's changefreq is kept, lowercased, when it
// is one the protocol defines; anything else, and an index's, is "".
func TestChangefreq(t *testing.T) {
	body := `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://example.org/a</loc><changefreq>hourly</changefreq></url>
<url><loc>https://example.org/b</loc><changefreq> Weekly </changefreq><lastmod>2026-01-02</lastmod></url>
<url><loc>https://example.org/c</loc><changefreq>sometimes</changefreq></url>
<url><loc>https://example.org/d</loc></url>
<url><loc>https://example.org/e</loc><changefreq>never</changefreq></url>
</urlset>`
	got, _, _ := parseAll(t, strings.NewReader(body), Options{})
	want := []string{"hourly", "weekly", "", "", "never"}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i, e := range got {
		if e.Changefreq != want[i] {
			t.Errorf("entry %d (%s): changefreq %q, want %q", i, e.URL, e.Changefreq, want[i])
		}
	}
	if !got[1].Lastmod.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("entry 1 lastmod %v, want 2026-01-02 (a changefreq before it must not take its place)", got[1].Lastmod)
	}
}
