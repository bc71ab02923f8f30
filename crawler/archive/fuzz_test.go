package archive

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzScan feeds the recovery scanner arbitrary bytes. Properties: no
// panic; the prefix it calls whole scans again cleanly, to the same
// records and the same end (recovery is idempotent); damage is always
// reported as ErrDamaged.
func FuzzScan(f *testing.F) {
	dir := f.TempDir()
	w, err := Open(Options{Dir: dir, Compress: true, Now: func() time.Time { return t0 }})
	if err != nil {
		f.Fatal(err)
	}
	w.Write(exchanges[0].ex)
	w.Write(exchanges[1].ex)
	w.Close()
	names, _ := Files(dir)
	gzipped, _ := os.ReadFile(filepath.Join(dir, names[0]))
	var plain bytes.Buffer
	r := &record{typ: TypeResponse, id: newID(), date: t0, ctype: "application/http;msgtype=response", block: exchanges[0].ex.Response}
	r.marshal(&plain)
	r.marshal(&plain)
	for _, b := range [][]byte{gzipped, plain.Bytes()} {
		f.Add(b)
		f.Add(b[:len(b)*2/3])
	}
	f.Add([]byte("WARC/1.1\r\nWARC-Type: x\r\nWARC-Record-ID: <y>\r\nContent-Length: 99999999999\r\n\r\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var n int
		end, err := Scan(bytes.NewReader(data), func(Entry) error { n++; return nil })
		if err != nil && !errors.Is(err, ErrDamaged) {
			t.Fatalf("error not ErrDamaged: %v", err)
		}
		if end < 0 || end > int64(len(data)) || err == nil && end != int64(len(data)) {
			t.Fatalf("end %d of %d bytes (err %v)", end, len(data), err)
		}
		var again int
		end2, err2 := Scan(bytes.NewReader(data[:end]), func(Entry) error { again++; return nil })
		if err2 != nil || end2 != end || again != n {
			t.Fatalf("rescan of the whole prefix: %d records to %d (%v), first scan %d records to %d", again, end2, err2, n, end)
		}
	})
}
