package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Limits per file, from the sitemaps.org protocol.
const (
	MaxEntries   = 50000
	MaxBytes     = 52428800 // 50 MiB, measured after decompression
	MaxURLLength = 2048
)

// Format is the kind of file that was read.
type Format int

const (
	Unknown Format = iota
	URLSet         // <urlset>: pages
	Index          // <sitemapindex>: more sitemaps
	Text           // one URL a line
	RSS            // RSS 2.0 <item><link>
	Atom           // Atom <entry><link href>
)

func (f Format) String() string {
	return [...]string{"unknown", "urlset", "sitemapindex", "text", "rss", "atom"}[f]
}

// Entry is one listed URL, as written (trimmed and unescaped once).
type Entry struct {
	URL     string
	Lastmod time.Time // zero if absent or unparsable
	// Changefreq is a urlset entry's <changefreq>, lowercased: one of
	// always, hourly, daily, weekly, monthly, yearly, never; "" if
	// absent or another value.
	Changefreq string
}

// Result describes a parse.
type Result struct {
	Format    Format
	Gzip      bool
	Entries   int    // entries handed to the callback
	Invalid   int    // entries dropped: no URL, not absolute http(s), too long
	Bytes     int64  // decompressed bytes read
	Truncated string // why parsing stopped early, "" if it did not
}

// Options override the limits; zero fields take the protocol's values.
type Options struct {
	MaxEntries int
	MaxBytes   int64
}

var (
	errTooBig  = errors.New("too big")
	errTooMany = errors.New("too many")
	gzipMagic  = []byte{0x1f, 0x8b}
	utf8BOM    = []byte{0xEF, 0xBB, 0xBF}
)

// Parse reads one sitemap file from r and calls fn for every entry, in
// file order. It returns an error for a file it cannot read as any format
// (or a read or gzip failure), after delivering whatever came before it.
func Parse(r io.Reader, opts Options, fn func(Entry)) (Result, error) {
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = MaxEntries
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = MaxBytes
	}
	var res Result
	br := bufio.NewReaderSize(r, 32<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return res, fmt.Errorf("sitemap gzip: %w", err)
		}
		defer zr.Close()
		src, res.Gzip = zr, true
	}
	lim := &limitReader{r: src, max: opts.MaxBytes}
	in := bufio.NewReaderSize(lim, 32<<10)
	skipBOMAndSpace(in)
	emit := func(e Entry) error {
		e.URL = strings.TrimSpace(e.URL)
		if !absoluteHTTP(e.URL) || len(e.URL) > MaxURLLength {
			res.Invalid++
			return nil
		}
		if res.Entries >= opts.MaxEntries {
			return errTooMany
		}
		res.Entries++
		fn(e)
		return nil
	}
	var err error
	if b, _ := in.Peek(1); len(b) == 1 && b[0] == '<' {
		err = parseXML(in, &res, emit)
	} else {
		res.Format = Text
		err = parseText(in, emit)
	}
	res.Bytes = lim.n
	switch {
	case errors.Is(err, errTooMany):
		res.Truncated = fmt.Sprintf("more than %d entries: the rest ignored", opts.MaxEntries)
		err = nil
	case errors.Is(err, errTooBig):
		res.Truncated = fmt.Sprintf("more than %d bytes (decompressed): the rest ignored", opts.MaxBytes)
		err = nil
	}
	return res, err
}

// limitReader counts bytes and fails with errTooBig past max.
type limitReader struct {
	r   io.Reader
	n   int64
	max int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n >= l.max {
		// Is there more? One byte tells.
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			return 0, errTooBig
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.max-l.n {
		p = p[:l.max-l.n]
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	return k, err
}

func skipBOMAndSpace(in *bufio.Reader) {
	if b, _ := in.Peek(3); bytes.Equal(b, utf8BOM) {
		in.Discard(3)
	}
	for {
		b, err := in.Peek(1)
		if err != nil || !(b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
			return
		}
		in.Discard(1)
	}
}

func absoluteHTTP(u string) bool {
	return len(u) > len("https://") && (strings.EqualFold(u[:7], "http://") || strings.EqualFold(u[:8], "https://"))
}

// parseText reads one URL a line; blank and invalid lines are skipped.
// Lines longer than MaxURLLength are read through and dropped.
func parseText(in *bufio.Reader, emit func(Entry) error) error {
	for {
		line, tooLong, err := readLine(in)
		if len(line) > 0 || tooLong {
			u := string(line)
			if tooLong {
				u = strings.Repeat("x", MaxURLLength+1) // counted as invalid
			}
			if err := emitText(u, emit); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func emitText(u string, emit func(Entry) error) error {
	if strings.TrimSpace(u) == "" {
		return nil
	}
	return emit(Entry{URL: u})
}

// readLine returns one line without its CR/LF; tooLong when it passed
// MaxURLLength (the excess is discarded, so memory stays bounded).
func readLine(in *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := in.ReadSlice('\n')
		if len(buf)+len(chunk) <= MaxURLLength+2 {
			buf = append(buf, chunk...)
		} else {
			tooLong = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if tooLong {
			buf = nil
		}
		return buf, tooLong, err
	}
}
