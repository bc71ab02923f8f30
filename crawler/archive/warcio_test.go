package archive_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/archive/archivetest"
)

// TestWarcioReadsOurFiles has warcio.js index files holding every shape
// of exchange, compressed and not, and compares its CDXJ index with ours
// line by line, and its list of records with our scanner's.
func TestWarcioReadsOurFiles(t *testing.T) {
	for _, compress := range []bool{true, false} {
		dir := t.TempDir()
		w, err := archive.Open(archive.Options{Dir: dir, Compress: compress, MaxSize: 1500, Now: func() time.Time { return time.Unix(1e9, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		for i, body := range []string{"<p>one</p>", "<p>two</p>", "<p>one</p>", ""} {
			resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
			if body != "" {
				resp += "a\r\n" + body + "\r\n" // 10 bytes
			}
			resp += "0\r\n\r\n"
			_, err := w.Write(archive.Exchange{URL: "http://example.org/p" + string(rune('a'+i)), Date: time.Unix(1e9+int64(i), 0),
				Request: []byte("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"), Response: []byte(resp),
				Metadata: []archive.Field{{Name: "outlink", Value: "http://example.org/"}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var ours bytes.Buffer
		if err := archive.Index(dir, &ours); err != nil {
			t.Fatal(err)
		}
		theirs := archivetest.CDXJ(t, dir)
		if got, want := strings.TrimSpace(ours.String()), strings.Join(theirs, "\n"); got != want {
			t.Errorf("compress=%v: our index\n%s\nwarcio's\n%s", compress, got, want)
		}
		recs := archivetest.Records(t, dir)
		n := archivetest.Count(recs)
		if n["request"] != 4 || n["response"] != 3 || n["revisit"] != 1 || n["metadata"] != 4 || n["warcinfo"] < 2 {
			t.Errorf("compress=%v: warcio read %v", compress, n)
		}
	}
}
