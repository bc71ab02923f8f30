package archive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// CDXJ is one index line in the form pywb reads: SURT key, 14-digit
// timestamp, and a JSON object.
type CDXJ struct {
	Key       string
	Timestamp string
	URL       string
	Mime      string // omitted when the response has no Content-Type
	Status    string
	Digest    string // payload digest without its "sha1:" prefix
	Length    int64
	Offset    int64
	Filename  string
}

// String formats the line: the JSON keys in pywb's order, values as
// strings, no HTML escaping.
func (c CDXJ) String() string {
	var b bytes.Buffer
	b.WriteString(c.Key + " " + c.Timestamp + " {")
	put := func(k, v string, first bool) {
		if !first {
			b.WriteByte(',')
		}
		b.Write(jsonString(k))
		b.WriteByte(':')
		b.Write(jsonString(v))
	}
	put("url", c.URL, true)
	if c.Mime != "" {
		put("mime", c.Mime, false)
	}
	if c.Status != "" {
		put("status", c.Status, false)
	}
	if c.Digest != "" {
		put("digest", c.Digest, false)
	}
	put("length", strconv.FormatInt(c.Length, 10), false)
	put("offset", strconv.FormatInt(c.Offset, 10), false)
	put("filename", c.Filename, false)
	b.WriteByte('}')
	return b.String()
}

func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// IndexEntry returns the index line of a response or revisit record, and
// false for every other record (requests, warcinfo, metadata), as pywb's
// and warcio's indexers do.
func IndexEntry(e Entry, filename string) (CDXJ, bool) {
	typ := e.Type()
	if typ != TypeResponse && typ != TypeRevisit {
		return CDXJ{}, false
	}
	c := cdxj(typ, e.Header.Get("WARC-Target-URI"), e.Header.Get("WARC-Date"), e.Header.Get("WARC-Payload-Digest"), parseResponse(e.Block))
	c.Offset, c.Length, c.Filename = e.Offset, e.Length, filename
	if !e.Compressed {
		// In an uncompressed file the CRLF CRLF after a record does not
		// count in its length, as warcio and pywb index it.
		c.Length -= 4
	}
	return c, true
}

// indexLine is the index line of a record being written, without its
// offset, length and file.
func indexLine(r *record, msg httpMessage) *CDXJ {
	c := cdxj(r.typ, r.field("WARC-Target-URI"), warcDate(r.date), r.field("WARC-Payload-Digest"), msg)
	return &c
}

func cdxj(typ, uri, date, payloadDigest string, msg httpMessage) CDXJ {
	c := CDXJ{Key: SURT(uri), URL: uri}
	date = strings.NewReplacer("-", "", ":", "", "T", "").Replace(date)
	c.Timestamp = date[:min(len(date), 14)]
	if payloadDigest != "" {
		_, c.Digest, _ = strings.Cut(payloadDigest, ":")
	}
	if msg.status != 0 {
		c.Status = strconv.Itoa(msg.status)
	}
	if typ == TypeRevisit {
		c.Mime = "warc/revisit"
	} else if ct := msg.header.Get("Content-Type"); ct != "" {
		mime, _, _ := strings.Cut(ct, ";")
		c.Mime = strings.TrimSpace(mime)
	}
	return c
}

// IndexSuffix names the CDXJ index written beside each closed file.
const IndexSuffix = ".cdxj"

// writeIndex writes the sorted index lines of the WARC file at path to
// path+IndexSuffix, through a temporary file renamed once complete.
func writeIndex(path string, lines []string) error {
	sort.Strings(lines)
	tmp := path + IndexSuffix + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	err = errors.Join(bw.Flush(), f.Sync(), f.Close())
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path+IndexSuffix)
}

// Files lists the closed WARC files of dir (*.warc and *.warc.gz, not
// the one still open), sorted by name, which is the order they were
// written in.
func Files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list WARC files: %w", err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && (strings.HasSuffix(n, ".warc") || strings.HasSuffix(n, ".warc.gz")) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Index writes the CDXJ index of every closed file in dir to w, sorted
// as pywb expects (by key, then timestamp). A damaged file is an error.
func Index(dir string, w io.Writer) error {
	names, err := Files(dir)
	if err != nil {
		return err
	}
	var lines []string
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		_, err = Scan(f, func(e Entry) error {
			if c, ok := IndexEntry(e, name); ok {
				lines = append(lines, c.String())
			}
			return nil
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("index %s: %w", name, err)
		}
	}
	sort.Strings(lines)
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
