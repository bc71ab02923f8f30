package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func captureServer(t *testing.T, tlsOn bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			w.Header().Set("X-Odd-Case", "kept")
			fmt.Fprint(w, "first ")
			w.(http.Flusher).Flush()
			fmt.Fprint(w, "second")
		case "/gzip":
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				t.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "text/html")
			zw := gzip.NewWriter(w)
			fmt.Fprint(zw, "<p>zipped</p>")
			zw.Close()
		case "/big":
			fmt.Fprint(w, strings.Repeat("b", 3<<20))
		default:
			fmt.Fprint(w, "plain")
		}
	})
	if tlsOn {
		return httptest.NewTLSServer(h)
	}
	return httptest.NewServer(h)
}

func TestCaptureRawExchange(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		srv := captureServer(t, tlsOn)
		defer srv.Close()
		opts := Options{UserAgent: "politecrawl/1.0", AllowPrivate: true, Capture: true, MaxBody: 1 << 20}
		if tlsOn {
			opts.TLSConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
		}
		f := New(opts)
		defer f.Close()
		get := func(path string) (*Response, []byte, []byte, string, bool) {
			t.Helper()
			capt := NewCapture()
			r, err := f.Fetch(WithCapture(context.Background(), capt), Request{URL: srv.URL + path})
			if err != nil {
				t.Fatalf("tls=%v %s: %v", tlsOn, path, err)
			}
			req, resp, ip, cut := capt.Finish()
			return r, req, resp, ip, cut
		}
		r, req, resp, ip, cut := get("/chunked")
		if string(r.Body) != "first second" || ip != "127.0.0.1" || cut ||
			!bytes.HasPrefix(req, []byte("GET /chunked HTTP/1.1\r\n")) || !bytes.Contains(req, []byte("User-Agent: politecrawl/1.0\r\n")) ||
			!bytes.HasPrefix(resp, []byte("HTTP/1.1 200 OK\r\n")) || !bytes.Contains(resp, []byte("Transfer-Encoding: chunked\r\n")) ||
			!bytes.Contains(resp, []byte("X-Odd-Case: kept\r\n")) || !bytes.HasSuffix(resp, []byte("\r\n0\r\n\r\n")) {
			t.Errorf("tls=%v chunked: body %q ip %q\nrequest %q\nresponse %q", tlsOn, r.Body, ip, req, resp)
		}
		// The same connection again: only this exchange is captured.
		r, _, resp, _, _ = get("/gzip")
		if string(r.Body) != "<p>zipped</p>" || bytes.Contains(resp, []byte("first")) || !bytes.Contains(resp, []byte("Content-Encoding: gzip\r\n")) ||
			bytes.Contains(resp, []byte("<p>zipped</p>")) {
			t.Errorf("tls=%v gzip: the body must be decoded for the crawler and kept compressed in the capture: %q", tlsOn, resp)
		}
		// Past the cap the fetch stops reading: the capture holds what was
		// read, never more than the cap plus 1 MiB.
		r, _, resp, _, cut = get("/big")
		if !r.Truncated || len(resp) < 1<<20 || len(resp) > 2<<20 {
			t.Errorf("tls=%v big: truncated=%v cut=%v %d bytes captured", tlsOn, r.Truncated, cut, len(resp))
		}
		// Without a Capture in the context nothing is recorded, and it works.
		if r, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/"}); err != nil || string(r.Body) != "plain" {
			t.Errorf("tls=%v uncaptured: %v %v", tlsOn, r, err)
		}
	}
}

func TestCaptureKeepsTheGuard(t *testing.T) {
	srv := captureServer(t, false)
	defer srv.Close()
	f := New(Options{UserAgent: "x", Capture: true, TLSConfig: &tls.Config{}})
	defer f.Close()
	_, err := f.Fetch(WithCapture(context.Background(), NewCapture()), Request{URL: srv.URL + "/"})
	if err == nil || !strings.Contains(err.Error(), ErrPrivateAddress.Error()) {
		t.Errorf("a capturing fetcher must still refuse loopback: %v", err)
	}
}
