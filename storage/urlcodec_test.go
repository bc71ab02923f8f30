package storage

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullRecord has every field of URLRecord set.
func fullRecord() URLRecord {
	at := time.Date(2025, 3, 4, 5, 6, 7, 890123456, time.UTC)
	return URLRecord{URL: "https://a.test/p?q=1", State: Fetched, Status: 200, Depth: 3, DiscoveredVia: "redirect",
		FetchedAt: at, ContentType: "text/html; charset=utf-8", Title: "Ünïcode title", NoIndex: true, NoFollow: true,
		Links: []string{"https://a.test/x", "https://a.test/xy", "https://b.test/", "", "https://b.test/"},
		Error: "an error", Parent: "https://a.test/", Attempts: 2, Redirects: 1,
		Lastmod: at.Add(-time.Hour).In(time.FixedZone("", 2*3600)), ETag: `W/"abc"`, LastModified: "Tue, 04 Mar 2025 05:06:07 GMT",
		Bytes: 123456, LinksDropped: 7, CheckedAt: at.Add(time.Minute), NextCheck: at.Add(24 * time.Hour),
		PayloadDigest: "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
		ContentUse: map[string]ContentUse{"ai-train": {Value: "no", Source: "robots.txt line 3: Content-Signal"},
			"search": {Value: "unspecified"}, "x-new": {Value: "yes", Source: "header Content-Usage"}},
		Fingerprint: 0xfeedfacecafebeef, ChangeChecks: 7, ChangeCount: 3, ChangeMillis: 86400e3 * 9, Changefreq: "daily"}
}

// sameRecord reports whether two records are equal, times compared as
// instants with their zone offsets.
func sameRecord(a, b URLRecord) bool {
	for _, p := range [][2]*time.Time{{&a.FetchedAt, &b.FetchedAt}, {&a.Lastmod, &b.Lastmod}, {&a.CheckedAt, &b.CheckedAt}, {&a.NextCheck, &b.NextCheck}} {
		_, oa := p[0].Zone()
		_, ob := p[1].Zone()
		if !p[0].Equal(*p[1]) || p[0].IsZero() != p[1].IsZero() || oa != ob {
			return false
		}
		*p[0], *p[1] = time.Time{}, time.Time{}
	}
	return reflect.DeepEqual(a, b)
}

func TestRecordRoundTrip(t *testing.T) {
	full := fullRecord()
	year1 := time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC) // not zero: one nanosecond past
	tests := []struct {
		name   string
		r      URLRecord
		parent uint64
		maxLen int // 0: no bound
	}{
		{"empty", URLRecord{URL: "u"}, 0, 5},
		{"queued link", URLRecord{URL: "https://b.test/a/b?c=d", State: Queued, Depth: 1, DiscoveredVia: "link", Links: []string{}, Parent: "p"}, 300, 9},
		{"queued seed", URLRecord{URL: "https://b.test/", State: Queued, DiscoveredVia: "seed", Links: []string{}}, 0, 6},
		{"every field", full, 1 << 40, 0},
		{"unknown via and state", URLRecord{URL: "u", State: "parked", DiscoveredVia: "feed"}, 0, 0},
		{"empty state", URLRecord{URL: "u", State: "", DiscoveredVia: "sitemap"}, 0, 0},
		{"nil links", URLRecord{URL: "u", State: Skipped, Links: nil, Error: "trap"}, 0, 0},
		{"max values", URLRecord{URL: "u", State: Failed, Status: math.MaxInt, Depth: math.MinInt, Attempts: math.MaxInt,
			Redirects: -1, Bytes: math.MaxInt64, LinksDropped: math.MinInt, FetchedAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
			Lastmod: year1, CheckedAt: time.Unix(math.MaxInt64/4, 0).UTC(), NextCheck: time.Unix(-1, 0).UTC()}, math.MaxUint64, 0},
		{"long strings", URLRecord{URL: "u", State: Fetched, Title: strings.Repeat("é", 5000), Links: []string{strings.Repeat("x", 300), strings.Repeat("x", 200)}}, 0, 0},
		{"invalid UTF-8 kept", URLRecord{URL: "u", State: Fetched, Title: "\xff\xfe", Links: []string{"\x00"}}, 0, 0},
	}
	for _, tc := range tests {
		v := appendRecord(nil, &tc.r, tc.parent)
		if v[0] == '{' {
			t.Errorf("%s: value starts with '{'", tc.name)
		}
		if tc.maxLen > 0 && len(v) > tc.maxLen {
			t.Errorf("%s: %d bytes, want at most %d", tc.name, len(v), tc.maxLen)
		}
		got, parent, err := decodeRecord(tc.r.URL, v)
		if err != nil {
			t.Errorf("%s: decode: %v", tc.name, err)
			continue
		}
		want := tc.r
		want.Parent = ""
		if parent != tc.parent || !sameRecord(got, want) {
			t.Errorf("%s: decode(encode(r)) = %+v parent %d,\nwant %+v parent %d", tc.name, got, parent, want, tc.parent)
		}
	}
}

// TestRecordOldJSON: values written before the binary form decode as they
// always did, Parent included.
func TestRecordOldJSON(t *testing.T) {
	for i, r := range []URLRecord{fullRecord(), {URL: "https://a.test/", State: Queued, Links: []string{}, DiscoveredVia: "seed"}, {URL: "x"}} {
		v, _ := json.Marshal(r)
		got, parent, err := decodeRecord(r.URL, v)
		if err != nil || parent != 0 || !sameRecord(got, r) {
			t.Errorf("step %d: decode(JSON) = %+v, %d, %v; want %+v", i, got, parent, err, r)
		}
	}
}

func TestRecordDamaged(t *testing.T) {
	full := fullRecord()
	good := appendRecord(nil, &full, 9)
	tests := []struct {
		name string
		v    []byte
	}{
		{"empty", nil},
		{"unknown version", []byte{0x02, 1, 1, 0}},
		{"JSON garbage", []byte(`{"url":`)},
		{"trailing bytes", append(appendRecord(nil, &URLRecord{}, 0), 0)},
		{"unknown field bits", binary.AppendUvarint([]byte{recordV1, 1, 1}, fAll+1)},
		{"unknown state code", []byte{recordV1, 99, 1, 0}},
		{"unknown via code", []byte{recordV1, 1, 99, 0}},
		{"parent id 0", []byte{recordV1, 1, 1, fParent, 0}},
		{"string past the end", []byte{recordV1, 1, 1, fError, 5, 'a'}},
		{"links shared past the previous", []byte{recordV1, 1, 1, fLinks, 1, 3, 0}},
		{"links count past the end", []byte{recordV1, 1, 1, fLinks, 100, 0, 0}},
		{"nanoseconds out of range", append(binary.AppendUvarint([]byte{recordV1, 1, 1, fLastmod, 2}, 1e9), 0)},
		{"zone offset out of range", binary.AppendVarint([]byte{recordV1, 1, 1, fLastmod, 2, 0}, 1<<20)},
	}
	for i := 1; i < len(good); i++ {
		tests = append(tests, struct {
			name string
			v    []byte
		}{"truncated", good[:i]})
	}
	for _, tc := range tests {
		if r, _, err := decodeRecord("u", tc.v); err == nil {
			t.Errorf("%s (% x): decoded %+v, want an error", tc.name, tc.v, r)
		}
	}
}

func TestQueueValue(t *testing.T) {
	tests := []struct {
		authority, url string
		wantLen        int
	}{
		{"a.test", "https://a.test/x?y=1", 7},
		{"a.test", "http://a.test/", 2},
		{"a.test:8080", "http://a.test:8080/p", 3},
		{"a.test", "https://a.test", 1},
		{"a.test", "https://b.test/x", 17},     // another authority: kept whole
		{"a.test", "ftp://a.test/x", 15},       // another scheme
		{"a.test", "\x01not a normal URL", 18}, // a marker byte first
		{"", "https://x/", 3},                  // no authority: the rest of the URL
		{"a.test:80", "http://a.test:80/x", 3}, // a port in both
		{"a.test", "https://a.test.evil/x", 8}, // the authority is only a prefix of the host: still exact
		{"a.test", "", 1},
	}
	for _, tc := range tests {
		v := queueValue(tc.authority, tc.url)
		if got := queueURL(tc.authority, v); got != tc.url {
			t.Errorf("queueURL(%q, queueValue(%q)) = %q", tc.authority, tc.url, got)
		}
		if len(v) != tc.wantLen {
			t.Errorf("queueValue(%q, %q) = %d bytes, want %d", tc.authority, tc.url, len(v), tc.wantLen)
		}
	}
	// Values written before the markers are the whole URL.
	if got := queueURL("a.test", []byte("https://a.test/old")); got != "https://a.test/old" {
		t.Errorf("old value: %q", got)
	}
}

func FuzzRecordRoundTrip(f *testing.F) {
	f.Add("queued", "link", 1, 0, 0, "", "", "", "https://a.test/x", "https://a.test/y", int64(0), int64(0), uint32(0), int32(0), uint8(4), uint64(3))
	f.Add("fetched", "seed", 0, 2, 200, "text/html", "title", "err", "https://a.test/x", "", int64(1e6), int64(1e9), uint32(5), int32(3600), uint8(7+64), uint64(0))
	f.Add("fetched", "seed", 200, 0, 200, "", "", "", "https://a.test/x", "https://a.test/y", int64(0), int64(0), uint32(0), int32(0), uint8(16), uint64(0))
	f.Add("fetched", "seed", 0, 0, 200, "no", "robots.txt line 3", "yes", "ai-train", "search", int64(0), int64(0), uint32(0), int32(0), uint8(32), uint64(0))
	f.Add("", "", -1, -1, -1, "\xff", "", "", "", "", int64(-1), int64(-62135596800), uint32(999999999), int32(-3600), uint8(0), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, state, via string, depth, attempts, status int, ct, title, errs, l1, l2 string, n, sec int64, nsec uint32, off int32, flags uint8, parent uint64) {
		at := time.Unix(sec, int64(nsec%1e9)).In(time.FixedZone("", int(off%(18*3600))))
		r := URLRecord{URL: "u", State: State(state), DiscoveredVia: via, Depth: depth, Attempts: attempts, Status: status,
			ContentType: ct, Title: title, Error: errs, ETag: l1, LastModified: l2, Bytes: n, Redirects: depth,
			LinksDropped: attempts, NoIndex: flags&1 != 0, NoFollow: flags&2 != 0}
		if flags&4 != 0 {
			r.Links = []string{l1, l2, l1 + l2}
		}
		if flags&16 != 0 { // long enough to be stored compressed
			r.Links = append(manyLinks(int(uint(depth)%300)), l1, l2)
		}
		if flags&8 != 0 {
			r.FetchedAt, r.Lastmod, r.CheckedAt, r.NextCheck = at, at, at, at
		}
		if flags&32 != 0 {
			r.ContentUse = map[string]ContentUse{l1: {Value: ct, Source: title}, l2: {Value: errs}}
		}
		if flags&64 != 0 { // what the recheck schedule keeps
			r.Fingerprint, r.ChangeChecks, r.ChangeCount, r.ChangeMillis, r.Changefreq = parent, attempts, depth, n, title
		}
		v := appendRecord(nil, &r, parent)
		got, gotParent, err := decodeRecord(r.URL, v)
		want := inZoneRecord(r)
		if err != nil || gotParent != parent || !sameRecord(got, want) {
			t.Fatalf("decode(encode(%+v)) = %+v, %d, %v", r, got, gotParent, err)
		}
	})
}

// inZoneRecord is r with its times in the zone decoding gives them. A
// zero instant in any zone is left out, as JSON's omitzero did.
func inZoneRecord(r URLRecord) URLRecord {
	for _, p := range []*time.Time{&r.FetchedAt, &r.Lastmod, &r.CheckedAt, &r.NextCheck} {
		if p.IsZero() {
			*p = time.Time{}
		} else {
			_, off := p.Zone()
			*p = inZone(*p, off)
		}
	}
	return r
}

// FuzzDecodeRecord feeds arbitrary values to the decoder: it never panics,
// what it accepts is the record of its key's URL (an old JSON value may
// name another: the key is the truth), and encodes back to a value that
// decodes the same.
func FuzzDecodeRecord(f *testing.F) {
	full := fullRecord()
	f.Add(appendRecord(nil, &full, 7))
	f.Add(appendRecord(nil, &URLRecord{State: Queued, DiscoveredVia: "link", Depth: 2, Links: []string{}}, 1))
	f.Add([]byte(`{"url":"u","state":"queued","links":[]}`))
	f.Add([]byte(`{"url":"0"}`)) // not its key: the key is the URL
	f.Add([]byte{recordV1, 0, 3, 'a', 'b', 'c', 0, 0, fLinks, 2, 0, 1, 'x', 1, 1, 'y'})
	f.Add(appendRecord(nil, &URLRecord{State: Fetched, Links: manyLinks(300)}, 0))
	f.Fuzz(func(t *testing.T, v []byte) {
		r, parent, err := decodeRecord("u", v)
		if err != nil {
			return
		}
		if r.URL != "u" {
			t.Fatalf("% x: decoded as the record of %q under the key %q", v, r.URL, "u")
		}
		again, parent2, err := decodeRecord("u", appendRecord(nil, &r, parent))
		r.Parent = "" // JSON's own, not re-encoded (the Tx stores its id)
		if err != nil || parent2 != parent || !sameRecord(again, inZoneRecord(r)) {
			t.Fatalf("% x: decoded %+v, re-encoded decodes as %+v, %v", v, r, again, err)
		}
	})
}

func FuzzQueueValue(f *testing.F) {
	f.Add("a.test", "https://a.test/x", []byte{})
	f.Add("a.test:80", "http://a.test:80/", []byte{queueHTTP, '/'})
	f.Fuzz(func(t *testing.T, authority, url string, v []byte) {
		if got := queueURL(authority, queueValue(authority, url)); got != url {
			t.Fatalf("queueURL(%q, queueValue(%q)) = %q", authority, url, got)
		}
		queueURL(authority, v) // any value: no panic
	})
}

// manyLinks is a seed page's link list: long enough to be compressed.
func manyLinks(n int) []string {
	links := make([]string, n)
	for i := range links {
		links[i] = "https://a.test/articles/" + strings.Repeat("x", i%7) + "/page?id=" + string(rune('a'+i%26)) + strings.Repeat("0", i%5)
	}
	return links
}

func TestRecordCompressedLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links []string
		z     bool // stored compressed
	}{
		{"short", []string{"https://a.test/x", "https://a.test/y"}, false},
		{"empty", []string{}, false},
		{"long", manyLinks(2000), true},
		{"just over", manyLinks(80), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := URLRecord{URL: "u", State: Fetched, Links: tc.links}
			v := appendRecord(nil, &r, 0)
			f, _ := binary.Uvarint(v[3:])
			if got := f&fLinksZ != 0; got != tc.z {
				t.Errorf("compressed = %v, want %v (%d bytes)", got, tc.z, len(v))
			}
			if f&fLinks != 0 && f&fLinksZ != 0 {
				t.Errorf("both link bits set")
			}
			got, _, err := decodeRecord("u", v)
			if err != nil || !reflect.DeepEqual(got.Links, tc.links) {
				t.Fatalf("decode: %v, %d links, want %d", err, len(got.Links), len(tc.links))
			}
			if tc.z && len(v) >= len(appendLinks(nil, tc.links)) {
				t.Errorf("compressed value %d bytes, plain list %d", len(v), len(appendLinks(nil, tc.links)))
			}
		})
	}
}

// TestRecordCompressedLinksDamaged: a damaged compressed list is an error,
// and a claimed size is never allocated beyond its bound.
func TestRecordCompressedLinksDamaged(t *testing.T) {
	r := URLRecord{URL: "u", State: Fetched, Links: manyLinks(500)}
	good := appendRecord(nil, &r, 0)
	// version, state, via, then the field bitmap: fLinksZ alone, 3 bytes
	if f, n := binary.Uvarint(good[3:]); f != fLinksZ || n != 3 {
		t.Fatalf("fields %#x in %d bytes", f, n)
	}
	head := good[:6]
	body := good[6:]
	plainN, n1 := binary.Uvarint(body)
	zN, n2 := binary.Uvarint(body[n1:])
	z := body[n1+n2:]
	if uint64(len(z)) != zN {
		t.Fatalf("compressed length %d, declared %d", len(z), zN)
	}
	build := func(plain, zlen uint64, data []byte) []byte {
		v := append([]byte{}, head...)
		v = binary.AppendUvarint(v, plain)
		v = binary.AppendUvarint(v, zlen)
		return append(v, data...)
	}
	flipped := append([]byte{}, z...)
	flipped[len(flipped)/2] ^= 0xff
	for _, tc := range []struct {
		name string
		v    []byte
	}{
		{"huge claim", build(1<<62, zN, z)},
		{"over the bound", build(maxLinksZ+1, 1<<20, append(z, make([]byte, 1<<20-len(z))...))},
		{"claim beyond flate's ratio", build(zN*2000, zN, z)},
		{"claim longer than the data", build(plainN+1, zN, z)},
		{"claim shorter than the data", build(plainN-1, zN, z)},
		{"truncated", build(plainN, zN, z[:len(z)/2])},
		{"truncated stream", build(plainN, zN-3, z[:len(z)-3])},
		{"garbled", build(plainN, zN, flipped)},
		{"not flate", build(4, 4, []byte{0xff, 0xff, 0xff, 0xff})},
		{"both bits", append(binary.AppendUvarint([]byte{recordV1, 2, 2}, fLinks|fLinksZ), 0, 2, 0, 0, 0)},
		{"inner list damaged", func() []byte {
			zz, _ := compressLinks(append(binary.AppendUvarint(nil, 2), make([]byte, 2000)...))
			v := append([]byte{}, head...)
			return append(v, zz...)
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := decodeRecord("u", tc.v); err == nil {
				t.Fatalf("no error for % x...", tc.v[:min(len(tc.v), 16)])
			}
		})
	}
	if got, _, err := decodeRecord("u", build(plainN, zN, z)); err != nil || len(got.Links) != 500 {
		t.Fatalf("rebuilt value: %v", err)
	}
}
