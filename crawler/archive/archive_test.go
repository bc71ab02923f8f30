package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func req(path string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: example.org\r\nUser-Agent: politecrawl/1.0\r\nAccept-Encoding: gzip\r\n\r\n")
}

func gz(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// exchanges covers the shapes a crawl meets.
var exchanges = []struct {
	name    string
	ex      Exchange
	types   []string
	payload string // Written.Payload
}{
	{"plain 200", Exchange{URL: "http://example.org/", Request: req("/"),
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 11\r\n\r\n<p>home</p>"),
		Metadata: []Field{{"decision", "fetched"}, {"outlink", "http://example.org/a"}}},
		[]string{TypeRequest, TypeResponse, TypeMetadata}, Digest([]byte("<p>home</p>"))},
	{"chunked, gzip-encoded", Exchange{URL: "http://example.org/a", Request: req("/a"),
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(gz("<p>a</p>")), gz("<p>a</p>")))},
		[]string{TypeRequest, TypeResponse}, Digest([]byte(gz("<p>a</p>")))},
	{"same payload elsewhere", Exchange{URL: "http://example.org/copy", Request: req("/copy"),
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n<p>home</p>"),
		Metadata: []Field{{"decision", "fetched"}}},
		[]string{TypeRequest, TypeRevisit, TypeMetadata}, Digest([]byte("<p>home</p>"))},
	{"304", Exchange{URL: "http://example.org/", Request: req("/"), Original: &Capture{URI: "http://example.org/", Date: t0, Digest: Digest([]byte("<p>home</p>"))},
		Response: []byte("HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n")},
		[]string{TypeRequest, TypeRevisit}, Digest([]byte("<p>home</p>"))}, // the original's
	{"redirect", Exchange{URL: "http://example.org/r", Request: req("/r"),
		Response: []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: /a\r\nContent-Length: 0\r\n\r\n")},
		[]string{TypeRequest, TypeResponse}, Digest(nil)},
	{"truncated", Exchange{URL: "http://example.org/big", Request: req("/big"), Truncated: true,
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\naaaaaaaaaa")},
		[]string{TypeRequest, TypeResponse}, ""},
	{"noarchive", Exchange{URL: "http://example.org/secret", Request: req("/secret"), NoArchive: "meta robots noarchive",
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 6\r\n\r\nsecret"),
		Metadata: []Field{{"decision", "fetched"}}},
		[]string{TypeMetadata}, ""},
}

// MustWrite writes exchanges into a fresh directory and returns it, its
// Writer closed.
func mustWrite(t testing.TB, opts Options) string {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return t0 }
	}
	w, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range exchanges {
		x.ex.Date, x.ex.IP = t0.Add(time.Duration(i)*time.Second), "192.0.2.1"
		got, err := w.Write(x.ex)
		if err != nil {
			t.Fatalf("%s: %v", x.name, err)
		}
		if strings.Join(got.Types, ",") != strings.Join(x.types, ",") {
			t.Errorf("%s: wrote %v, want %v", x.name, got.Types, x.types)
		}
		if revisit := slices.Contains(x.types, TypeRevisit); revisit != (got.Revisit != "") || got.New != nil && revisit {
			t.Errorf("%s: Written %+v", x.name, got)
		}
		if want := x.payload; got.Payload != want {
			t.Errorf("%s: Written.Payload %q, want %q", x.name, got.Payload, want)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return opts.Dir
}

func scanDir(t testing.TB, dir string) (names []string, entries []Entry) {
	t.Helper()
	names, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Scan(f, func(e Entry) error { entries = append(entries, e); return nil })
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
	}
	return names, entries
}

func TestWriteAndScan(t *testing.T) {
	for _, compress := range []bool{true, false} {
		t.Run(fmt.Sprint("compress=", compress), func(t *testing.T) {
			dir := mustWrite(t, Options{Prefix: "testbot", Compress: compress, Hostname: "crawler1", Info: []Field{{"software", "politecrawl/test"}}})
			names, entries := scanDir(t, dir)
			ext := `\.warc`
			if compress {
				ext += `\.gz`
			}
			if len(names) != 1 || !regexp.MustCompile(`^testbot-20261122100000000-00000-crawler1`+ext+`$`).MatchString(names[0]) {
				t.Fatalf("files %v", names)
			}
			if entries[0].Type() != TypeWarcinfo || !bytes.Contains(entries[0].Block, []byte("software: politecrawl/test\r\n")) ||
				entries[0].Header.Get("WARC-Filename") != names[0] {
				t.Errorf("warcinfo: %v %q", entries[0].Header, entries[0].Block)
			}
			byID := map[string]Entry{}
			for _, e := range entries {
				byID[e.Header.Get("WARC-Record-ID")] = e
				if d := e.Header.Get("WARC-Block-Digest"); d != Digest(e.Block) {
					t.Errorf("%s %s: block digest %s, want %s", e.Type(), e.Header.Get("WARC-Target-URI"), d, Digest(e.Block))
				}
			}
			for _, e := range entries {
				if to := e.Header.Get("WARC-Concurrent-To"); to != "" && byID[to].Header == nil {
					t.Errorf("%s concurrent to unknown record %s", e.Type(), to)
				}
			}
			chunked := entries[5] // warcinfo, 3 records of /, request of /a
			if chunked.Type() != TypeResponse || !bytes.Contains(chunked.Block, []byte("\r\n0\r\n\r\n")) ||
				chunked.Header.Get("WARC-Payload-Digest") != Digest([]byte(gz("<p>a</p>"))) {
				t.Errorf("chunked response must keep its framing, digest the gzip bytes: %v", chunked.Header)
			}
			revisit := entries[7]
			if revisit.Header.Get("WARC-Profile") != ProfileIdenticalPayload || revisit.Header.Get("WARC-Refers-To") != entries[2].Header.Get("WARC-Record-ID") ||
				revisit.Header.Get("WARC-Refers-To-Target-URI") != "http://example.org/" || bytes.Contains(revisit.Block, []byte("<p>home</p>")) {
				t.Errorf("identical-payload revisit: %v %q", revisit.Header, revisit.Block)
			}
			nm := entries[10]
			if nm.Header.Get("WARC-Profile") != ProfileNotModified || nm.Header.Get("WARC-Refers-To-Date") != "2026-11-22T10:00:00.000000Z" ||
				nm.Header.Get("WARC-Payload-Digest") != entries[2].Header.Get("WARC-Payload-Digest") {
				t.Errorf("server-not-modified revisit: %v", nm.Header)
			}
			last := entries[len(entries)-1]
			if last.Type() != TypeMetadata || !bytes.Contains(last.Block, []byte("noarchive: meta robots noarchive")) {
				t.Errorf("noarchive page: %v %q", last.Header, last.Block)
			}
			trunc := entries[len(entries)-2]
			if trunc.Header.Get("WARC-Truncated") != "length" {
				t.Errorf("truncated body: %v", trunc.Header)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	dir := mustWrite(t, Options{Prefix: "testbot", Compress: true, Hostname: "h"})
	var b bytes.Buffer
	if err := Index(dir, &b); err != nil {
		t.Fatal(err)
	}
	names, _ := Files(dir)
	if side, err := os.ReadFile(filepath.Join(dir, names[0]+IndexSuffix)); err != nil || string(side) != b.String() {
		t.Errorf("the .cdxj written at close differs from the index read back (%v):\n%s\nwant\n%s", err, side, b.String())
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 6 { // responses and revisits: /, /a, /copy, / (304), /r, /big
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	want := `org,example)/ 20261122100000 {"url":"http://example.org/","mime":"text/html","status":"200","digest":"`
	if !strings.HasPrefix(lines[0], want) {
		t.Errorf("first line\n%s\nwant prefix\n%s", lines[0], want)
	}
	if !strings.Contains(b.String(), `org,example)/copy 20261122100002 {"url":"http://example.org/copy","mime":"warc/revisit","status":"200"`) {
		t.Errorf("revisit line missing:\n%s", b.String())
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir, MaxSize: 600, Compress: true, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		ex := exchanges[0].ex
		ex.URL, ex.Date = fmt.Sprintf("http://example.org/%d", i), t0
		if _, err := w.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	open, _ := filepath.Glob(filepath.Join(dir, "*"+OpenSuffix))
	if len(open) != 1 {
		t.Errorf("one file open while writing, got %v", open)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names, entries := scanDir(t, dir)
	if len(names) < 2 {
		t.Fatalf("no rotation at 600 bytes: %v", names)
	}
	infos := 0
	for _, e := range entries {
		if e.Type() == TypeWarcinfo {
			infos++
		}
	}
	if infos != len(names) || len(entries) != len(names)+15 {
		t.Errorf("%d files, %d warcinfo, %d records", len(names), infos, len(entries))
	}
	if _, err := w.Write(exchanges[0].ex); err != ErrClosed {
		t.Errorf("write after close: %v", err)
	}
}

// TestSerialContinuesAcrossRuns: each run's first file takes the serial
// after the highest already in the directory for its prefix (a file left
// open by a killed run included), so files of successive runs never
// share a serial; other prefixes' files do not count.
func TestSerialContinuesAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"other-20261122100000000-00041-h.warc.gz", "testbot-notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []string{"00000", "00001", "00003"} {
		if i == 2 { // a killed run left serial 00002 open
			open := filepath.Join(dir, "testbot-20261122100000000-00002-h.warc.gz"+OpenSuffix)
			src, _ := filepath.Glob(filepath.Join(dir, "testbot-*-00001-h.warc.gz"))
			data, err := os.ReadFile(src[0])
			if err != nil || os.WriteFile(open, data, 0o644) != nil {
				t.Fatal(err)
			}
		}
		start := t0.Add(time.Duration(i) * time.Hour)
		mustWrite(t, Options{Dir: dir, Prefix: "testbot", Compress: true, Hostname: "h", Now: func() time.Time { return start }})
		names, _ := filepath.Glob(filepath.Join(dir, "testbot-"+start.Format("20060102150405")+"000-"+want+"-h.warc.gz"))
		if len(names) != 1 {
			all, _ := Files(dir)
			t.Fatalf("run %d: no file with serial %s: %v", i, want, all)
		}
	}
}

func TestOneWriterPerDir(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: dir}); !errors.Is(err, ErrDirInUse) && runtime.GOOS != "windows" {
		t.Errorf("a second writer on the same directory: %v", err)
	}
	w.Close()
	w2, err := Open(Options{Dir: dir})
	if err != nil {
		t.Errorf("after Close: %v", err)
	} else {
		w2.Close()
	}
}

func TestRecover(t *testing.T) {
	for _, compress := range []bool{true, false} {
		dir := mustWrite(t, Options{Compress: compress})
		names, whole := scanDir(t, dir)
		path := filepath.Join(dir, names[0])
		data, _ := os.ReadFile(path)
		// A crash part-way through the last record, at every few bytes.
		for cut := len(data) - 1; cut > len(data)-1000; cut -= 37 {
			want := 0
			for _, e := range whole {
				if e.Offset+e.Length <= int64(cut) {
					want++
				}
			}
			os.WriteFile(path+OpenSuffix, data[:cut], 0o644)
			os.Remove(path)
			rec, err := Recover(dir)
			if err != nil || len(rec) != 1 || rec[0].Records != want || rec[0].File != names[0] {
				t.Fatalf("compress=%v cut=%d: %+v %v", compress, cut, rec, err)
			}
			var idx bytes.Buffer
			Index(dir, &idx)
			if side, err := os.ReadFile(path + IndexSuffix); err != nil || string(side) != idx.String() {
				t.Fatalf("compress=%v cut=%d: recovered file's .cdxj (%v):\n%s\nwant\n%s", compress, cut, err, side, idx.String())
			}
			if _, got := scanDir(t, dir); len(got) != want {
				t.Fatalf("compress=%v cut=%d: %d records after recovery", compress, cut, len(got))
			}
		}
	}
	// Nothing whole at all: the file goes.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.warc.gz"+OpenSuffix), []byte{0x1f, 0x8b, 8}, 0o644)
	if rec, err := Recover(dir); err != nil || len(rec) != 1 || rec[0].File != "" {
		t.Errorf("empty open file: %+v %v", rec, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

func TestSURT(t *testing.T) {
	for i, c := range []struct{ in, want string }{
		{"http://www.Example.org/A?b=2&a=1", "org,example)/a?a=1&b=2"},
		{"https://example.org", "org,example)/"},
		{"http://127.0.0.1:8080/x", "1,0,0,127:8080)/x"},
		{"https://www2.example.org:443/", "org,example)/"},
		{"mailto:x@example.org", "mailto:x@example.org"},
		// The host as pywb's surt canonicalises it: lower case before a
		// leading www, www2 … is dropped (once), and after userinfo goes.
		{"http://WWW.Example.org/A", "org,example)/a"},
		{"https://Www2.EXAMPLE.org/", "org,example)/"},
		{"http://user:pw@www.example.org/", "org,example)/"},
		{"http://www.www.example.org/", "org,example,www)/"},
		{"http://wwwexample.org/", "org,wwwexample)/"},
		// Dots at the ends, and doubled, go.
		{"http://example.org./x", "org,example)/x"},
		{"http://www.example.org.:8080/", "org,example:8080)/"},
		// A non-ASCII name is written in its IDNA form.
		{"http://B\u00fccher.example/", "example,xn--bcher-kva)/"},
		// Numeric IPv4 forms become dotted decimal; an invalid one stays.
		{"http://3279880203/blah", "11,0,127,195)/blah"},
		{"http://39024579298/", "226,210,11,22)/"},
		{"http://017.0.0.1/", "1,0,0,15)/"},
		{"http://10.0.258/", "2,1,0,10)/"},
		{"http://1.2.3.256/", "256,3,2,1)/"},
		{"http://0x7f.0.0.1/", "1,0,0,0x7f)/"},
		// The default port however it is written; IPv6 as it was.
		{"http://example.org:080/", "org,example)/"},
		{"http://[::1]:8080/x", "::1:8080)/x"},
	} {
		if got := SURT(c.in); got != c.want {
			t.Errorf("step %d: SURT(%q) = %q, want %q", i, c.in, got, c.want)
		}
	}
}

func TestParseResponse(t *testing.T) {
	for i, c := range []struct {
		raw      string
		status   int
		payload  string
		complete bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 200, "abc", true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc", 200, "abc", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n", 200, "abcde", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n5\r\nde", 200, "abcde", false},
		{"HTTP/1.0 404 Not Found\n\nnope", 404, "nope", true},
		{"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 304, "", true},
		{"garbage", 0, "", false},
	} {
		m := parseResponse([]byte(c.raw))
		if m.status != c.status || string(m.payload) != c.payload || m.complete != c.complete {
			t.Errorf("step %d: parseResponse = %d %q %v, want %d %q %v", i, m.status, m.payload, m.complete, c.status, c.payload, c.complete)
		}
	}
}

// TestConcurrentWrites: workers writing while files rotate and the
// coordinator syncs never interleave two exchanges' records.
func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir, Compress: true, MaxSize: 4000})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				ex := exchanges[0].ex
				ex.URL, ex.Date = fmt.Sprintf("http://example.org/%d/%d", g, i), t0
				if _, err := w.Write(ex); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			if err := w.Sync(); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names, entries := scanDir(t, dir)
	var uri string
	n := 0
	for _, e := range entries {
		switch e.Type() {
		case TypeWarcinfo:
		case TypeRequest:
			uri = e.Header.Get("WARC-Target-URI")
			n++
		default:
			if got := e.Header.Get("WARC-Target-URI"); got != uri {
				t.Fatalf("%s record of %s follows the request of %s", e.Type(), got, uri)
			}
		}
	}
	if n != 200 || len(names) < 2 {
		t.Errorf("%d exchanges in %d files", n, len(names))
	}
}
