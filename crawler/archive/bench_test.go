package archive

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkWrite measures the write path for a typical page exchange
// (request, 20 KiB HTML response, metadata with 50 outlinks), each
// payload distinct so none becomes a revisit, with and without gzip.
// Sync is called every 64 exchanges, as a busy crawl's commit batches do.
func BenchmarkWrite(b *testing.B) {
	body := strings.Repeat("<p>politecrawl writes WARC records</p>\n", 600)[:20<<10]
	var meta []Field
	for i := range 50 {
		meta = append(meta, Field{"outlink", fmt.Sprintf("http://example.org/page/%d", i)})
	}
	for _, compress := range []bool{false, true} {
		b.Run(fmt.Sprint("gzip=", compress), func(b *testing.B) {
			w, err := Open(Options{Dir: b.TempDir(), Compress: compress, MaxSize: 256 << 20})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				page := fmt.Sprintf("%08d", i) + body[8:]
				resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(page), page)
				b.SetBytes(int64(len(resp)))
				_, err := w.Write(Exchange{URL: fmt.Sprintf("http://example.org/%d", i), Date: time.Unix(1e9, 0),
					Request: req("/"), Response: []byte(resp), Metadata: meta})
				if err != nil {
					b.Fatal(err)
				}
				if i++; i%64 == 0 {
					if err := w.Sync(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkWriteParallel is BenchmarkWrite's gzip case from as many
// goroutines as GOMAXPROCS, as crawl workers write: digests and
// compression run outside the Writer's lock, so it scales with cores.
func BenchmarkWriteParallel(b *testing.B) {
	body := strings.Repeat("<p>politecrawl writes WARC records</p>\n", 600)[:20<<10]
	w, err := Open(Options{Dir: b.TempDir(), Compress: true, MaxSize: 256 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var n atomic.Int64
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			page := fmt.Sprintf("%08d", i) + body[8:]
			resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(page), page)
			if _, err := w.Write(Exchange{URL: fmt.Sprintf("http://example.org/%d", i), Date: time.Unix(1e9, 0),
				Request: req("/"), Response: []byte(resp)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
