package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// MaxLength bounds the URLs Normalise accepts; longer ones are refused
// rather than stored (a trap guard far above any real URL).
const MaxLength = 8192

// Errors callers branch on.
var (
	ErrScheme      = errors.New("not an http or https URL")
	ErrNoHost      = errors.New("no host")
	ErrCredentials = errors.New("URL carries credentials")
	ErrTooLong     = errors.New("URL too long")
)

// Normalise parses raw and returns its normal form. It is idempotent:
// Normalise(Normalise(x)) == Normalise(x).
//
// A URL already in the plainest normal form (see isPlainNormal) is
// returned as it is, without parsing: most links a crawler finds are
// (extract resolves them to absolute URLs), and parsing each again, to
// build the same string, was most of a link's cost on the worker.
func Normalise(raw string) (string, error) {
	if isPlainNormal(raw) {
		return raw, nil
	}
	u, err := Parse(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// Parse is Normalise returning the parsed URL.
func Parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > MaxLength {
		return nil, fmt.Errorf("normalise %.64q...: %w", raw, ErrTooLong)
	}
	if hostWithoutScheme(raw) {
		return nil, fmt.Errorf("normalise %q: %w: it has no scheme; add http:// or https://", raw, ErrScheme)
	}
	u, err := url.Parse(fixStrayPercent(raw))
	if err != nil {
		return nil, fmt.Errorf("normalise: %w", err)
	}
	return normaliseURL(u)
}

// hostWithoutScheme reports whether raw starts with a host name and no
// scheme: "example.org/a", "localhost:8080", "127.0.0.1:8080/". Typed as a
// seed, net/url reads the first as a path and the others as a scheme or
// fails ("first path segment in URL cannot contain colon"), which says
// nothing of the missing http://. mailto:, javascript: and other schemes
// are not taken for hosts.
func hostWithoutScheme(raw string) bool {
	if strings.Contains(raw, "://") {
		return false
	}
	first := raw
	if i := strings.IndexAny(first, "/?#"); i >= 0 {
		first = first[:i]
	}
	host, port, hasPort := strings.Cut(first, ":")
	if hasPort && (port == "" || strings.Trim(port, "0123456789") != "") {
		return false // a scheme (mailto:x), not a port
	}
	if host == "" || strings.ContainsAny(host, "@ ") {
		return false
	}
	return hasPort || host == "localhost" || strings.Contains(host, ".")
}

// fixStrayPercent encodes a '%' that starts no escape as %25, as browsers
// do, instead of refusing the URL as net/url would.
func fixStrayPercent(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			var b strings.Builder
			for j := 0; j < len(s); j++ {
				if s[j] == '%' && (j+2 >= len(s) || !isHex(s[j+1]) || !isHex(s[j+2])) {
					b.WriteString("%25")
				} else {
					b.WriteByte(s[j])
				}
			}
			return b.String()
		}
	}
	return s
}

// Resolve resolves ref against base and normalises the result; the base is
// expected to be normal already.
func Resolve(base *url.URL, ref string) (*url.URL, error) {
	r, err := url.Parse(fixStrayPercent(ref))
	if err != nil {
		return nil, fmt.Errorf("resolve %q: %w", ref, err)
	}
	return normaliseURL(base.ResolveReference(r))
}

func normaliseURL(u *url.URL) (*url.URL, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("normalise %q: %w", u.Redacted(), ErrScheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("normalise %q: %w", u.Redacted(), ErrCredentials)
	}
	host, err := normaliseHost(u.Hostname())
	if err != nil {
		return nil, fmt.Errorf("normalise %q: %w", u.String(), err)
	}
	port := u.Port()
	if port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	out := &url.URL{Scheme: scheme, Host: joinHostPort(host, port)}
	p := removeDotSegments(canonicalEscapes(u.EscapedPath()))
	if p == "" {
		p = "/"
	}
	if err := setPath(out, p); err != nil {
		return nil, fmt.Errorf("normalise %q: %w", u.String(), err)
	}
	out.RawQuery = canonicalEscapes(u.RawQuery)
	if s := out.String(); len(s) > MaxLength {
		return nil, fmt.Errorf("normalise %.64q...: %w", s, ErrTooLong)
	}
	return out, nil
}

func setPath(u *url.URL, escaped string) error {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = p, escaped
	if u.EscapedPath() != escaped {
		// Go would escape differently; keep ours by forcing RawPath.
		u.RawPath = escaped
	}
	return nil
}

func normaliseHost(h string) (string, error) {
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", ErrNoHost
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), nil
	}
	if strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("host %q: empty label", h)
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(h), nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host %q: %w", h, err)
	}
	if a == "" || strings.HasPrefix(a, ".") || strings.HasSuffix(a, ".") || strings.Contains(a, "..") {
		return "", fmt.Errorf("host %q: empty label after IDNA mapping", h)
	}
	return a, nil
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}

// Authority returns host[:port] of a normal URL string: the unit of
// politeness (one queue, one limiter, one request in flight).
func Authority(normal string) string {
	s := normal
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	return s
}

// Origin returns scheme://host[:port] of a normal URL string: the unit of
// robots.txt.
func Origin(normal string) string {
	i := strings.Index(normal, "://")
	if i < 0 {
		return ""
	}
	return normal[:i+3] + Authority(normal)
}

// removeDotSegments is RFC 3986 section 5.2.4 on an escaped path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	var out []string
	in := p
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			i := strings.IndexByte(in[1:], '/')
			if i < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:i+1])
				in = in[i+1:]
			}
		}
	}
	return strings.Join(out, "")
}
