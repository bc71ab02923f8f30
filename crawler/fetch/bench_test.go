package fetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkFetch is one small page over a kept-alive loopback connection,
// traced as a crawl's worker traces it: the per-request cost of the
// client side (the in-process server's share is in it too).
func BenchmarkFetch(b *testing.B) {
	page := `<html><head><title>h1 page 7</title></head><body><a href="/p/15">child 15</a> ` +
		strings.Repeat(`<a href="/p/16">child 16</a> `, 4) + `</body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, page)
	}))
	defer srv.Close()
	f := New(Options{UserAgent: "politecrawl/1.0 (+https://example.org/bot)", AllowPrivate: true})
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		ctx, trace := NewTrace(context.Background(), time.Now, nil)
		r, err := f.Fetch(ctx, Request{URL: srv.URL + "/p/7"})
		if err != nil || len(r.Body) != len(page) || trace.Sent().IsZero() {
			b.Fatal(r, err)
		}
	}
}
