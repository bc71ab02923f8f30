package storage

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"time"
)

// This file owns the value of a URL record in the urls bucket. The seen
// set holds one record per URL ever found, most of them queued and never
// fetched, so the value of a queued record is what a big crawl's state
// file is made of. JSON repeated every field name, the URL (already the
// key) and the parent URL in each one: about 250 bytes. The binary form
// below costs 6 to 9 bytes for a queued record.
//
// Layout, version 1 (the first byte; never '{', so the JSON values of
// older files are told apart and still read):
//
//	version    1 byte, recordV1
//	state      1 byte: a code from stateCodes, or 0 and a string
//	via        1 byte: a code from viaCodes, or 0 and a string
//	fields     uvarint bitmap of the fields present (f* below)
//	then each field present, in bit order: ints as zigzag varints,
//	strings as uvarint length and bytes, times as three varints
//	(Unix seconds, nanoseconds, zone offset in seconds), the parent as
//	the uvarint id its URL has in the parents bucket (see parents.go),
//	links as a uvarint count and each link front-coded against the one
//	before it (uvarint shared prefix, uvarint length, the rest);
//	compressed links (fLinksZ, instead of fLinks) as the uvarint length
//	of that front-coded list, the uvarint length of its flate
//	compression (compress/flate), and the compressed bytes.
//
// Codes and bits are part of the file format: append, never reorder.
const recordV1 = 0x01

// stateCodes and viaCodes map code i+1 to a value; 0 means the value
// follows as a string (a state or via this version does not know).
var (
	stateCodes = []string{string(Queued), string(Fetched), string(Disallowed), string(Failed), string(Skipped)}
	viaCodes   = []string{"", "link", "seed", "redirect", "sitemap"}
)

// Field bits, those a queued record has first so its bitmap is one byte.
const (
	fDepth = 1 << iota
	fParent
	fLinks // Links is not nil (an empty list stays an empty list, as in JSON)
	fAttempts
	fRedirects
	fLastmod
	fError
	fStatus
	fFetchedAt
	fContentType
	fTitle
	fNoIndex
	fNoFollow
	fETag
	fLastModified
	fBytes
	fLinksDropped
	fCheckedAt
	fNextCheck
	fLinksZ        // Links, front-coded and flate-compressed (see linksZThreshold)
	fPayloadDigest // absent from records written before it: they read as ""
	fContentUse    // absent from records written before it: they read as nil
	fFingerprint   // absent from older records: read as 0 (no body seen)
	fChanges       // ChangeChecks, ChangeCount, ChangeMillis; absent from older records: zeros
	fChangefreq    // absent from older records: ""
	fLast          = fChangefreq
	fAll           = fLast<<1 - 1
)

// linksZThreshold is the length of a front-coded link list above which it
// is stored flate-compressed. Seed and hub pages carry thousands of links
// whose front-coded list still repeats path words and query keys: at 10 M
// queued URLs these lists were 47.6 bytes per URL, flate cuts them by
// about two thirds. Short lists stay plain, where flate's header and
// Huffman tables would cost more than they save, and decoding is cheaper.
const linksZThreshold = 1024

// maxLinksZ bounds the declared length of a compressed link list, so that a
// damaged value can never make the decoder allocate without limit: the
// crawler keeps at most a few thousand links per page, far below it.
const maxLinksZ = 64 << 20

// appendRecord appends the binary value of r to dst. r.URL is not in it
// (it is the key); r.Parent is not either: parent is its id, 0 for none.
func appendRecord(dst []byte, r *URLRecord, parent uint64) []byte {
	f := presentFields(r, parent)
	var links []byte
	if f&fLinks != 0 {
		links = appendLinks(make([]byte, 0, linksSize(r.Links)), r.Links)
		if len(links) > linksZThreshold {
			if z, ok := compressLinks(links); ok {
				f, links = f&^fLinks|fLinksZ, z
			}
		}
	}
	dst = slices.Grow(dst, recordSize(r, f, len(links)))
	dst = append(dst, recordV1)
	dst = appendCode(dst, string(r.State), stateCodes)
	dst = appendCode(dst, r.DiscoveredVia, viaCodes)
	dst = binary.AppendUvarint(dst, f)
	for bit := uint64(1); bit <= fLast; bit <<= 1 {
		switch {
		case f&bit == 0:
		case bit == fLinks || bit == fLinksZ:
			dst = append(dst, links...)
		default:
			dst = appendField(dst, r, parent, bit)
		}
	}
	return dst
}

// recordSize bounds the length of appendRecord's value for r with the
// fields f and encoded links of the given length (a record's content
// uses aside), so that the value is allocated once rather than grown
// field by field: a fetched record grew four times.
func recordSize(r *URLRecord, f uint64, links int) int {
	const v = binary.MaxVarintLen64
	// Three varints each.
	const times = fLastmod | fFetchedAt | fCheckedAt | fNextCheck | fChanges
	// The version, state, via and bitmap.
	n := 1 + 2*v + len(r.State) + len(r.DiscoveredVia) + v
	n += links + bits.OnesCount64(f&^times)*v + bits.OnesCount64(f&times)*3*v
	return n + len(r.Error) + len(r.ContentType) + len(r.Title) + len(r.ETag) + len(r.LastModified) + len(r.PayloadDigest) + len(r.Changefreq)
}

// linksSize bounds the length of appendLinks' encoding of links.
func linksSize(links []string) int {
	n := binary.MaxVarintLen64
	for _, l := range links {
		n += 2*binary.MaxVarintLen64 + len(l)
	}
	return n
}

// compressLinks gives the fLinksZ form of a front-coded link list: its
// length, then the flate-compressed list behind its own length. ok is
// false when compression does not make it shorter (then the plain list is
// stored).
func compressLinks(plain []byte) ([]byte, bool) {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		return nil, false // only for a bad level
	}
	if _, err := w.Write(plain); err != nil {
		return nil, false
	}
	if err := w.Close(); err != nil {
		return nil, false
	}
	z := binary.AppendUvarint(nil, uint64(len(plain)))
	z = binary.AppendUvarint(z, uint64(buf.Len()))
	z = append(z, buf.Bytes()...)
	return z, len(z) < len(plain)
}

func presentFields(r *URLRecord, parent uint64) uint64 {
	var f uint64
	set := func(bit uint64, present bool) {
		if present {
			f |= bit
		}
	}
	set(fDepth, r.Depth != 0)
	set(fParent, parent != 0)
	set(fLinks, r.Links != nil)
	set(fAttempts, r.Attempts != 0)
	set(fRedirects, r.Redirects != 0)
	set(fLastmod, !r.Lastmod.IsZero())
	set(fError, r.Error != "")
	set(fStatus, r.Status != 0)
	set(fFetchedAt, !r.FetchedAt.IsZero())
	set(fContentType, r.ContentType != "")
	set(fTitle, r.Title != "")
	set(fNoIndex, r.NoIndex)
	set(fNoFollow, r.NoFollow)
	set(fETag, r.ETag != "")
	set(fLastModified, r.LastModified != "")
	set(fBytes, r.Bytes != 0)
	set(fLinksDropped, r.LinksDropped != 0)
	set(fCheckedAt, !r.CheckedAt.IsZero())
	set(fNextCheck, !r.NextCheck.IsZero())
	set(fPayloadDigest, r.PayloadDigest != "")
	set(fContentUse, len(r.ContentUse) > 0)
	set(fFingerprint, r.Fingerprint != 0)
	set(fChanges, r.ChangeChecks != 0 || r.ChangeCount != 0 || r.ChangeMillis != 0)
	set(fChangefreq, r.Changefreq != "")
	return f
}

func appendField(dst []byte, r *URLRecord, parent, bit uint64) []byte {
	switch bit {
	case fDepth:
		return binary.AppendVarint(dst, int64(r.Depth))
	case fParent:
		return binary.AppendUvarint(dst, parent)
	case fLinks:
		return appendLinks(dst, r.Links)
	case fAttempts:
		return binary.AppendVarint(dst, int64(r.Attempts))
	case fRedirects:
		return binary.AppendVarint(dst, int64(r.Redirects))
	case fLastmod:
		return appendTime(dst, r.Lastmod)
	case fError:
		return appendString(dst, r.Error)
	case fStatus:
		return binary.AppendVarint(dst, int64(r.Status))
	case fFetchedAt:
		return appendTime(dst, r.FetchedAt)
	case fContentType:
		return appendString(dst, r.ContentType)
	case fTitle:
		return appendString(dst, r.Title)
	case fETag:
		return appendString(dst, r.ETag)
	case fLastModified:
		return appendString(dst, r.LastModified)
	case fBytes:
		return binary.AppendVarint(dst, r.Bytes)
	case fLinksDropped:
		return binary.AppendVarint(dst, int64(r.LinksDropped))
	case fCheckedAt:
		return appendTime(dst, r.CheckedAt)
	case fNextCheck:
		return appendTime(dst, r.NextCheck)
	case fPayloadDigest:
		return appendString(dst, r.PayloadDigest)
	case fContentUse:
		return appendContentUse(dst, r.ContentUse)
	case fFingerprint:
		return binary.AppendUvarint(dst, r.Fingerprint)
	case fChanges:
		dst = binary.AppendVarint(dst, int64(r.ChangeChecks))
		dst = binary.AppendVarint(dst, int64(r.ChangeCount))
		return binary.AppendVarint(dst, r.ChangeMillis)
	case fChangefreq:
		return appendString(dst, r.Changefreq)
	}
	return dst // fNoIndex, fNoFollow: the bit is the value
}

func appendCode(dst []byte, s string, codes []string) []byte {
	for i, c := range codes {
		if c == s {
			return append(dst, byte(i+1))
		}
	}
	return appendString(append(dst, 0), s)
}

func appendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

func appendTime(dst []byte, t time.Time) []byte {
	_, off := t.Zone()
	dst = binary.AppendVarint(dst, t.Unix())
	dst = binary.AppendUvarint(dst, uint64(t.Nanosecond()))
	return binary.AppendVarint(dst, int64(off))
}

// appendLinks front-codes the links: a page's links share their scheme
// and often their host and path with the link before.
func appendLinks(dst []byte, links []string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(links)))
	prev := ""
	for _, l := range links {
		n := commonPrefix(prev, l)
		dst = binary.AppendUvarint(dst, uint64(n))
		dst = appendString(dst, l[n:])
		prev = l
	}
	return dst
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// decodeRecord decodes the value v of the record of url: the binary form,
// or the JSON of files written before it. It returns the parent's id (0
// for none, and always for JSON, whose Parent is the URL itself); the
// caller resolves it. The record's URL is always url, whatever a JSON
// value says. An error means the value is damaged.
func decodeRecord(url string, v []byte) (URLRecord, uint64, error) {
	var r URLRecord
	if len(v) > 0 && v[0] == '{' {
		err := json.Unmarshal(v, &r)
		// The key is the URL, as in the binary form (which does not
		// store it): the queue, the seen set and every lookup go by the
		// key, so a url field that differs (a damaged value; the old
		// code wrote records under their own URL) must not make the
		// record speak for another URL.
		r.URL = url
		if len(r.ContentUse) == 0 {
			r.ContentUse = nil // as the binary form reads an empty set
		}
		return r, 0, err
	}
	if len(v) == 0 || v[0] != recordV1 {
		return r, 0, errors.New("not a URL record (unknown format)")
	}
	d := decoder{b: v[1:]}
	r.URL = url
	r.State = State(d.code(stateCodes, "state"))
	r.DiscoveredVia = d.code(viaCodes, "via")
	f := d.uvarint("fields")
	if d.err == nil && f&^fAll != 0 {
		d.fail("unknown fields %#x", f&^fAll)
	}
	if d.err == nil && f&fLinks != 0 && f&fLinksZ != 0 {
		d.fail("links stored both plain and compressed")
	}
	var parent uint64
	for bit := uint64(1); bit <= fLast && d.err == nil; bit <<= 1 {
		if f&bit != 0 {
			d.field(&r, &parent, bit)
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the last field", len(d.b))
	}
	return r, parent, d.err
}

// decoder reads a binary record; the first error sticks and every later
// read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) field(r *URLRecord, parent *uint64, bit uint64) {
	switch bit {
	case fDepth:
		r.Depth = d.int("depth")
	case fParent:
		*parent = d.uvarint("parent")
		if *parent == 0 && d.err == nil {
			d.fail("parent id 0")
		}
	case fLinks:
		r.Links = d.links()
	case fAttempts:
		r.Attempts = d.int("attempts")
	case fRedirects:
		r.Redirects = d.int("redirects")
	case fLastmod:
		r.Lastmod = d.time("lastmod")
	case fError:
		r.Error = d.string("error")
	case fStatus:
		r.Status = d.int("status")
	case fFetchedAt:
		r.FetchedAt = d.time("fetched_at")
	case fContentType:
		r.ContentType = d.string("content type")
	case fTitle:
		r.Title = d.string("title")
	case fNoIndex:
		r.NoIndex = true
	case fNoFollow:
		r.NoFollow = true
	case fETag:
		r.ETag = d.string("etag")
	case fLastModified:
		r.LastModified = d.string("last_modified")
	case fBytes:
		r.Bytes = d.varint("bytes")
	case fLinksDropped:
		r.LinksDropped = d.int("links_dropped")
	case fCheckedAt:
		r.CheckedAt = d.time("checked_at")
	case fNextCheck:
		r.NextCheck = d.time("next_check")
	case fLinksZ:
		r.Links = d.linksZ()
	case fPayloadDigest:
		r.PayloadDigest = d.string("payload_digest")
	case fContentUse:
		r.ContentUse = d.contentUse()
	case fFingerprint:
		r.Fingerprint = d.uvarint("fingerprint")
	case fChanges:
		r.ChangeChecks, r.ChangeCount, r.ChangeMillis = d.int("change checks"), d.int("change count"), d.varint("change ms")
	case fChangefreq:
		r.Changefreq = d.string("changefreq")
	}
}

// maxContentUses bounds the uses a record may declare: a damaged count
// must not make the decoder allocate without limit.
const maxContentUses = 1 << 10

func appendContentUse(dst []byte, uses map[string]ContentUse) []byte {
	keys := make([]string, 0, len(uses))
	for k := range uses {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendString(dst, uses[k].Value)
		dst = appendString(dst, uses[k].Source)
	}
	return dst
}

func (d *decoder) contentUse() map[string]ContentUse {
	n := d.uvarint("content_use")
	if d.err != nil {
		return nil
	}
	if n == 0 || n > maxContentUses || n > uint64(len(d.b)) {
		// An encoder never writes an empty set: its bit is left out.
		d.fail("content_use: %d uses in %d bytes", n, len(d.b))
		return nil
	}
	uses := make(map[string]ContentUse, n)
	for range n {
		k := d.string("content_use")
		uses[k] = ContentUse{Value: d.string("content_use"), Source: d.string("content_use")}
	}
	if d.err != nil {
		return nil
	}
	return uses
}

// linksZ reads a compressed link list. The decompressed size is the one
// declared, at most maxLinksZ, and read through a limit: damage gives an
// error, never more memory than the declared size.
func (d *decoder) linksZ() []string {
	n := d.uvarint("compressed links")
	zn := d.uvarint("compressed links")
	if d.err != nil {
		return nil
	}
	if zn > uint64(len(d.b)) {
		d.fail("compressed links: %d bytes, %d left", zn, len(d.b))
		return nil
	}
	// flate expands at most about 1032 to 1; a larger claim is damage.
	if n > maxLinksZ || n > 1032*zn+64 {
		d.fail("compressed links: %d bytes claimed from %d", n, zn)
		return nil
	}
	z := d.b[:zn]
	d.b = d.b[zn:]
	fr := flate.NewReader(bytes.NewReader(z))
	defer fr.Close()
	plain := make([]byte, n)
	if _, err := io.ReadFull(fr, plain); err != nil {
		d.fail("compressed links: %v", err)
		return nil
	}
	if m, err := fr.Read(make([]byte, 1)); m > 0 || (err != nil && err != io.EOF) {
		d.fail("compressed links: longer than the %d bytes declared", n)
		return nil
	}
	inner := decoder{b: plain}
	links := inner.links()
	if inner.err == nil && len(inner.b) > 0 {
		inner.fail("compressed links: %d bytes after the list", len(inner.b))
	}
	if inner.err != nil {
		d.fail("%v", inner.err)
		return nil
	}
	return links
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("%s: bad varint", what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// varint reads what binary.AppendVarint wrote: a zigzag-coded uvarint.
func (d *decoder) varint(what string) int64 {
	u := d.uvarint(what)
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) int(what string) int { return int(d.varint(what)) }

func (d *decoder) string(what string) string {
	n := d.uvarint(what)
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail("%s: %d bytes, %d left", what, n, len(d.b))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) code(codes []string, what string) string {
	if d.err != nil {
		return ""
	}
	if len(d.b) == 0 {
		d.fail("%s: missing", what)
		return ""
	}
	c := int(d.b[0])
	d.b = d.b[1:]
	switch {
	case c == 0:
		return d.string(what)
	case c > len(codes):
		d.fail("%s: unknown code %d", what, c)
		return ""
	}
	return codes[c-1]
}

func (d *decoder) time(what string) time.Time {
	sec, nsec, off := d.varint(what), d.uvarint(what), d.varint(what)
	if d.err != nil {
		return time.Time{}
	}
	if nsec >= 1e9 || off <= -1<<20 || off >= 1<<20 {
		d.fail("%s: bad time", what)
		return time.Time{}
	}
	return inZone(time.Unix(sec, int64(nsec)), int(off))
}

// inZone gives t the zone with offset off the way encoding/json's
// decoding of an RFC 3339 time does: UTC for 0, Local when its offset at
// t is off, a fixed zone otherwise.
func inZone(t time.Time, off int) time.Time {
	if off == 0 {
		return t.UTC()
	}
	if _, local := t.In(time.Local).Zone(); local == off {
		return t.In(time.Local)
	}
	return t.In(time.FixedZone("", off))
}

func (d *decoder) links() []string {
	n := d.uvarint("links")
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) { // each link takes two bytes at least
		d.fail("links: %d links in %d bytes", n, len(d.b))
		return nil
	}
	links := make([]string, 0, n)
	prev := ""
	for range n {
		shared := d.uvarint("links")
		rest := d.string("links")
		if d.err != nil {
			return nil
		}
		if shared > uint64(len(prev)) {
			d.fail("links: shares %d bytes with a link of %d", shared, len(prev))
			return nil
		}
		prev = prev[:shared] + rest
		links = append(links, prev)
	}
	return links
}
