package archive

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// SURT returns the sort-friendly key of an http(s) URL as pywb writes it
// (the surt package's default canonicalisation): lower case, the host
// canonicalised as canonicalHost says, its labels reversed and joined by
// commas, the port when it is not the scheme's default, ")", the path,
// and the query's arguments sorted. Other URLs, and URLs it cannot parse,
// are returned as they are.
//
// warcio.js strips a leading www before lower-casing, so for a host such
// as WWW.example.org its keys differ from pywb's and ours; pywb is the
// replay tool that reads the index.
func SURT(raw string) string {
	if !strings.HasPrefix(raw, "http:") && !strings.HasPrefix(raw, "https:") {
		return raw
	}
	u, err := url.Parse(strings.ToLower(raw))
	if err != nil || u.Host == "" {
		return raw
	}
	host := canonicalHost(u.Hostname())
	if host == "" {
		return raw
	}
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	key := strings.Join(labels, ",")
	if p, err := strconv.Atoi(u.Port()); err == nil && !(u.Scheme == "http" && p == 80 || u.Scheme == "https" && p == 443) {
		key += ":" + strconv.Itoa(p)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + path
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		sort.Strings(args)
		key += "?" + strings.Join(args, "&")
	}
	return key
}

var leadingWWW = regexp.MustCompile(`^www\d*\.`)

// canonicalHost does to a lower-cased host (userinfo, port and IPv6
// brackets already gone) what pywb's surt does, in its order: a
// non-ASCII name becomes its IDNA (punycode) form, ".." becomes "." and
// dots at either end go, a numeric IPv4 form (3279880203, 10.0.258,
// 017.0.0.1) becomes dotted decimal, other bytes outside printable ASCII
// are %-escaped, and then one leading www, www2 … label is dropped.
func canonicalHost(h string) string {
	if !isASCII(h) {
		if a, err := idna.Lookup.ToASCII(h); err == nil {
			h = a
		}
	}
	h = strings.Trim(strings.ReplaceAll(h, "..", "."), ".")
	if ip, ok := numericIPv4(h); ok {
		h = ip
	} else {
		h = strings.ToLower(escapeHost(h))
	}
	return leadingWWW.ReplaceAllString(h, "")
}

// escapeHost %-escapes what Python's quote escapes with the safe set
// surt gives it: controls, space, '#', '%', DEL and every non-ASCII byte.
func escapeHost(h string) string {
	var b strings.Builder
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c <= ' ' || c == '#' || c == '%' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// decimalIP and octalIP are the host shapes surt hands to the resolver
// as IPv4 numbers (it leaves hex forms alone).
var (
	decimalIP = regexp.MustCompile(`^[1-9][0-9]*(\.[0-9]+){0,3}$`)
	octalIP   = regexp.MustCompile(`^0[0-7]*(\.[0-7]+){0,3}$`)
)

// numericIPv4 reads h as surt does: all digits is a number taken modulo
// 2^32; a dotted numeric form is read as inet_aton reads it (a part with
// a leading 0 is octal, the last part fills the bytes left). It returns
// the dotted decimal address, and false when h is no such form or a part
// is out of range.
func numericIPv4(h string) (string, bool) {
	var v uint64
	if h != "" && allDigits(h) {
		for i := 0; i < len(h); i++ {
			v = (v*10 + uint64(h[i]-'0')) & 0xffffffff
		}
		return dotted(uint32(v)), true
	}
	if !decimalIP.MatchString(h) && !octalIP.MatchString(h) {
		return "", false
	}
	parts := strings.Split(h, ".")
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 0, 32) // base 0: a leading 0 is octal
		bits := 8
		if i == len(parts)-1 {
			bits = 32 - 8*i
		}
		if err != nil || n >= 1<<bits {
			return "", false
		}
		v = v<<bits | n
	}
	return dotted(uint32(v)), true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func dotted(v uint32) string {
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}
