package archive

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseResponse drives the parser of captured responses, which reads
// whatever a server sent (and what the fetch cap cut), with arbitrary
// bytes: it must never panic, and what it reports must lie inside the
// input. The second half checks a property: any payload sent in chunks of
// any sizes comes back byte for byte, complete.
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"), []byte("hello world"), uint8(3))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), []byte(""), uint8(1))
	f.Add([]byte("HTTP/1.1 304 Not Modified\n\nx"), []byte("\r\n0\r\n"), uint8(0))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"), []byte("x"), uint8(200))
	f.Fuzz(func(t *testing.T, raw, data []byte, step uint8) {
		m := parseResponse(raw)
		if m.headLen < 0 || m.headLen > len(raw) {
			t.Fatalf("headLen %d outside the %d-byte input", m.headLen, len(raw))
		}
		if m.headLen > 0 && len(m.payload) > len(raw)-m.headLen {
			t.Fatalf("payload of %d bytes from a %d-byte body", len(m.payload), len(raw)-m.headLen)
		}

		// Chunk data into pieces of step bytes (1 when 0) and parse it back.
		n := int(step)
		if n == 0 {
			n = 1
		}
		var body bytes.Buffer
		for rest := data; len(rest) > 0; {
			k := min(n, len(rest))
			fmt.Fprintf(&body, "%x\r\n%s\r\n", k, rest[:k])
			rest = rest[k:]
		}
		body.WriteString("0\r\n\r\n")
		resp := append([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), body.Bytes()...)
		got := parseResponse(resp)
		if got.status != 200 || !got.complete || !bytes.Equal(got.payload, data) {
			t.Fatalf("chunked round trip: status %d complete %v payload %q, want %q", got.status, got.complete, got.payload, data)
		}
		// Cut anywhere before the last chunk: incomplete, and a prefix of data.
		cut := resp[:len(resp)-len("0\r\n\r\n")-int(step)%(body.Len()-len("0\r\n\r\n")+1)]
		part := parseResponse(cut)
		if part.complete && len(cut) < len(resp)-len("0\r\n\r\n") {
			t.Fatalf("a cut chunked body (%d of %d bytes) reported complete", len(cut), len(resp))
		}
		if !bytes.HasPrefix(data, part.payload) {
			t.Fatalf("a cut chunked body gave %q, not a prefix of %q", part.payload, data)
		}
	})
}

// FuzzSURT: the index key of any URL a page can link to is computed
// without panicking, has its ")" between host and path for http(s) URLs
// it can parse, and is the same for URLs that differ only in a leading www
// before a host that starts with a letter and has no empty label (pywb
// reads "0" as 0.0.0.0 but "www.0" as 0, and "www...a" as ".a").
func FuzzSURT(f *testing.F) {
	for _, s := range []string{"http://www.Example.com/a?b=1&a=2", "https://example.com:443/", "http://[::1]:8080/x", "http://%zz/", "ftp://x/", "https://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		k := SURT(raw)
		if k == raw {
			return // not an http(s) URL it could parse: kept as it is
		}
		if !strings.Contains(k, ")") {
			t.Fatalf("SURT(%q) = %q has no host/path separator", raw, k)
		}
		if rest, ok := strings.CutPrefix(raw, "http://"); ok && rest != "" && unicode.IsLetter(rune(rest[0])) &&
			!strings.HasPrefix(strings.ToLower(rest), "www") && !strings.Contains(rest, "..") {
			if k2 := SURT("http://www." + raw[7:]); k2 != k && k2 != "http://www."+raw[7:] {
				t.Fatalf("SURT(%q) = %q but with www. %q", raw, k, k2)
			}
		}
	})
}
