package archive

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Record types written by this package.
const (
	TypeWarcinfo = "warcinfo"
	TypeRequest  = "request"
	TypeResponse = "response"
	TypeRevisit  = "revisit"
	TypeMetadata = "metadata"
)

// Revisit profiles (WARC 1.1 section 6.7).
const (
	ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
	ProfileNotModified      = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
)

// field is one WARC named field.
type field struct{ name, value string }

// record is one WARC record ready to be serialised.
type record struct {
	typ    string
	id     string
	fields []field // after WARC-Type, WARC-Record-ID and WARC-Date
	date   time.Time
	ctype  string
	block  []byte
	index  *CDXJ // a response's or revisit's index line, less its place in the file
}

func (r *record) add(name, value string) {
	if value != "" {
		r.fields = append(r.fields, field{name, value})
	}
}

// field returns the value of a named field added with add, "" if none.
func (r *record) field(name string) string {
	for _, f := range r.fields {
		if f.name == name {
			return f.value
		}
	}
	return ""
}

// marshal appends the serialised record to buf: version line, header,
// blank line, block, and the two CRLFs that end every record.
func (r *record) marshal(buf *bytes.Buffer) {
	buf.WriteString("WARC/1.1\r\n")
	writeField(buf, "WARC-Type", r.typ)
	writeField(buf, "WARC-Record-ID", r.id)
	writeField(buf, "WARC-Date", warcDate(r.date))
	for _, f := range r.fields {
		writeField(buf, f.name, f.value)
	}
	if r.ctype != "" {
		writeField(buf, "Content-Type", r.ctype)
	}
	writeField(buf, "Content-Length", strconv.Itoa(len(r.block)))
	buf.WriteString("\r\n")
	buf.Write(r.block)
	buf.WriteString("\r\n\r\n")
}

func writeField(buf *bytes.Buffer, name, value string) {
	buf.WriteString(name)
	buf.WriteString(": ")
	buf.WriteString(value)
	buf.WriteString("\r\n")
}

// warcDate is the WARC-Date form: UTC, with microseconds (WARC 1.1 allows
// a fraction of a second).
func warcDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// newID returns a fresh record ID, a random (version 4) UUID URN.
func newID() string {
	var b [16]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		panic(fmt.Sprintf("archive: no randomness for a record ID: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Digest returns the SHA-1 digest of b in the WARC form "sha1:BASE32".
func Digest(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}
