package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
)

// Entry is one complete record found by Scan.
type Entry struct {
	Offset int64 // where the record (or its gzip member) starts in the file
	Length int64 // its length in the file, compressed when the file is
	// Compressed: the record is a gzip member of its own.
	Compressed bool
	Header     textproto.MIMEHeader
	Block      []byte
}

// Type is the record's WARC-Type.
func (e *Entry) Type() string { return e.Header.Get("WARC-Type") }

// ErrDamaged is wrapped by Scan's error when the data stops being whole
// records: a record cut short, a broken gzip member, a malformed header.
var ErrDamaged = errors.New("damaged WARC data")

// maxRecord bounds one record's size when reading, against a hostile or
// corrupt length field.
const maxRecord = 4 << 30

// Scan reads the records of a WARC file, compressed (one gzip member per
// record, recognised by its magic bytes) or not, and calls fn for each
// whole record in order. It returns the offset just past the last whole
// record and nil when the data ends cleanly; on damage it returns that
// offset with an error wrapping ErrDamaged. An error from fn stops it.
func Scan(r io.Reader, fn func(Entry) error) (int64, error) {
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	var end int64
	for {
		head, err := br.Peek(2)
		if len(head) == 0 && errors.Is(err, io.EOF) {
			return end, nil
		}
		var e Entry
		compressed := len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
		if compressed {
			e, err = readMember(br)
		} else {
			e, err = readRecord(br)
		}
		pos := cr.n - int64(br.Buffered())
		if err != nil {
			return end, fmt.Errorf("record at offset %d: %w: %v", end, ErrDamaged, err)
		}
		e.Offset, e.Length, e.Compressed, end = end, pos-end, compressed, pos
		if err := fn(e); err != nil {
			return end, err
		}
	}
}

// readMember reads one gzip member holding exactly one record.
func readMember(br *bufio.Reader) (Entry, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return Entry{}, err
	}
	zr.Multistream(false)
	data, err := io.ReadAll(io.LimitReader(zr, maxRecord))
	if err != nil {
		return Entry{}, err
	}
	inner := bufio.NewReader(bytes.NewReader(data))
	e, err := readRecord(inner)
	if err != nil {
		return Entry{}, err
	}
	if inner.Buffered() > 0 {
		return Entry{}, errors.New("gzip member holds more than one record")
	}
	return e, nil
}

// readRecord reads one uncompressed record: version line, header, block
// of Content-Length bytes, and the CRLF CRLF after it.
func readRecord(br *bufio.Reader) (Entry, error) {
	tp := textproto.NewReader(br)
	version, err := tp.ReadLine()
	if err != nil {
		return Entry{}, err
	}
	if !strings.HasPrefix(version, "WARC/1.") {
		return Entry{}, fmt.Errorf("not a WARC record: %.40q", version)
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return Entry{}, fmt.Errorf("record header: %w", err)
	}
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 || n > maxRecord {
		return Entry{}, fmt.Errorf("bad Content-Length %q", h.Get("Content-Length"))
	}
	if h.Get("WARC-Type") == "" || h.Get("WARC-Record-ID") == "" {
		return Entry{}, errors.New("record without WARC-Type or WARC-Record-ID")
	}
	var block bytes.Buffer
	if _, err := io.CopyN(&block, br, n); err != nil {
		return Entry{}, fmt.Errorf("block cut short: %w", err)
	}
	var tail [4]byte
	if _, err := io.ReadFull(br, tail[:]); err != nil || string(tail[:]) != "\r\n\r\n" {
		return Entry{}, errors.New("record not ended by CRLF CRLF")
	}
	return Entry{Header: h, Block: block.Bytes()}, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
