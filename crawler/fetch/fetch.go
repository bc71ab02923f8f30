package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrPrivateAddress is returned when a connection would go to a loopback,
// private, link-local, multicast or unspecified address and the crawl does
// not allow private addresses.
var ErrPrivateAddress = errors.New("refusing to connect to a private address")

// DefaultIdleConns is Options.IdleConns when it is zero: enough for a
// few thousand hosts in rotation (BenchmarkBound2000Hosts: with 256, 2,000
// hosts at a 1 s delay saw requests 36 ms after their slot opened on
// average; with 4096, 22 ms, the 20 ms margin included).
const DefaultIdleConns = 4096

// Options configure a Fetcher. Zero durations and sizes take the defaults
// shown.
type Options struct {
	UserAgent      string        // sent on every request
	From           string        // operator e-mail for the From header (RFC 9110 10.1.2); optional
	ConnectTimeout time.Duration // 10s
	HeaderTimeout  time.Duration // 20s, until response headers arrive
	Timeout        time.Duration // 60s for the whole exchange, body included
	MaxBody        int64         // 10 MiB; the rest is not read
	// IdleConns is how many connections, across all hosts, stay open
	// between requests (4096; negative: none, every request dials). A
	// crawl visits a host again after its delay: with fewer idle
	// connections than hosts in rotation the pool evicts each one before
	// its host's turn comes back, and nearly every request pays for a new
	// connection (the server for a new handshake). Each costs one file
	// descriptor and about 20 KB of memory.
	IdleConns    int
	AllowPrivate bool // permit loopback and private addresses
	// DialContext, if set, replaces the dialer, and with it the private
	// address guard and the pinned addresses (it is given the name; see
	// WithAddress). For tests over an in-memory network (crawltest.PipeNet).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Now is the clock for Started and Duration (nil: time.Now).
	Now func() time.Time
	// Capture makes the Fetcher record the raw bytes of every exchange
	// whose context carries a Capture (WithCapture), for WARC files. It
	// keeps to HTTP/1.1 and does TLS itself, above the recording.
	Capture bool
	// TLSConfig, if set, is the base TLS configuration when Capture is
	// set (tests give their own roots).
	TLSConfig *tls.Config
	// AcceptTypes, if not empty, lists the media types ("text/html",
	// "image/*") whose bodies are read; a 2xx response of another type is
	// cut after its headers (Response.Unaccepted). A response without a
	// Content-Type is read. Empty: every type is read.
	AcceptTypes []string
}

func (o *Options) defaults() {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = 20 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 10 << 20
	}
	if o.IdleConns == 0 {
		o.IdleConns = DefaultIdleConns
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Now reads the Fetcher's clock.
func (f *Fetcher) Now() time.Time { return f.opts.Now() }

// Fetcher sends requests. It is safe for concurrent use; share one.
type Fetcher struct {
	opts   Options
	client *http.Client
	// plain is the header of every Fetch without conditions (User-Agent,
	// From), shared by those requests and never written: a header map per
	// request was a tenth of the bytes a fetch allocated. net/http only
	// reads a request's header (the Client clones it to add anything).
	plain http.Header
}

// New returns a Fetcher with its own connection pool.
func New(opts Options) *Fetcher {
	opts.defaults()
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second}
	if !opts.AllowPrivate {
		dialer.ControlContext = guard
	}
	base := dialer.DialContext
	if opts.DialContext != nil {
		base = opts.DialContext
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		addrs, err := pinned(ctx, network, addr, opts.DialContext != nil)
		if err != nil {
			return nil, err
		}
		c, err := dialFirst(ctx, base, network, addrs, opts.ConnectTimeout)
		if err != nil {
			return nil, err
		}
		return &timedConn{Conn: c, now: opts.Now, ip: remoteIP(c)}, nil
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would make the guard check the proxy's address
		DialContext:           dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          max(opts.IdleConns, 0),
		MaxIdleConnsPerHost:   2,
		DisableKeepAlives:     opts.IdleConns < 0,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   opts.ConnectTimeout,
		ResponseHeaderTimeout: opts.HeaderTimeout,
	}
	if opts.Capture {
		recording(tr, dial, opts)
	}
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	f := &Fetcher{opts: opts, client: client, plain: http.Header{}}
	f.setHeaders(&http.Request{Header: f.plain})
	return f
}

// guard refuses connections to non-public addresses.
func guard(_ context.Context, network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !IsPublic(ip) {
		// The dialer's *net.OpError already names the operation and
		// the address ("dial tcp 10.0.0.5:80: ...").
		return ErrPrivateAddress
	}
	return nil
}

var cgnat = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

// IsPublic reports whether ip is a globally routable unicast address.
func IsPublic(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip))
}

// Close releases idle connections.
func (f *Fetcher) Close() { f.client.CloseIdleConnections() }

// Do sends req with the Fetcher's client and headers, without following
// redirects. It satisfies robotscache.Doer, so robots.txt goes through the
// same client and guard.
func (f *Fetcher) Do(req *http.Request) (*http.Response, error) {
	f.setHeaders(req)
	return f.client.Do(f.traceCapture(req))
}

func (f *Fetcher) setHeaders(req *http.Request) {
	req.Header.Set("User-Agent", f.opts.UserAgent)
	if f.opts.From != "" {
		req.Header.Set("From", f.opts.From)
	}
}

// send is f.client.Do(req) for a GET without a body whose redirects are
// not followed, without the Client: its redirect machinery copies every
// request's header (for the hops it will never make here) and allocates
// the copier, a tenth of a small page's client-side allocations. What the
// Client does besides for such a request is done here too, to the same
// errors: the url.Error around a transport's error, the scheme-mismatch
// error, and the error for a redirect whose Location does not parse. A
// URL with user information (the Client turns it into basic
// authentication) goes through the Client. TestSendLikeClient holds the
// two to the same answers.
func (f *Fetcher) send(req *http.Request) (*http.Response, error) {
	if req.URL.User != nil || req.Method != http.MethodGet || req.Body != nil {
		return f.client.Do(req)
	}
	fail := func(err error) error {
		return &url.Error{Op: "Get", URL: req.URL.String(), Err: err}
	}
	resp, err := f.client.Transport.RoundTrip(req)
	if err != nil {
		if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch
		}
		return nil, fail(err)
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// The Client parses the Location of a redirect before it asks
		// CheckRedirect, and fails the request when it does not parse.
		if loc := resp.Header.Get("Location"); loc != "" {
			if _, err := req.URL.Parse(loc); err != nil {
				resp.Body.Close()
				return nil, fail(fmt.Errorf("failed to parse Location header %q: %v", loc, err))
			}
		}
	}
	return resp, nil
}

// Request is one page fetch. ETag and LastModified, when set, make it a
// conditional GET (values sent verbatim).
type Request struct {
	URL          string
	ETag         string
	LastModified string
	// Control marks a file the crawler reads to obey a site (tdmrep.json):
	// AcceptTypes never cuts it, or the site's terms would go unread.
	Control bool
}

// Response is what came back. Body holds at most Options.MaxBody bytes.
type Response struct {
	URL         string
	Status      int
	Header      http.Header
	Body        []byte
	Truncated   bool   // the body was longer than MaxBody
	Location    string // resolved redirect target for 3xx, "" otherwise
	ContentType string
	Started     time.Time
	Duration    time.Duration
	// Unaccepted: a 2xx response whose type Options.AcceptTypes does not
	// list; its body was not read.
	Unaccepted bool
}

// Error is a failed exchange: no usable response.
type Error struct {
	Op      string // "request", "read body"
	URL     string
	Err     error
	Timeout bool
}

func (e *Error) Error() string { return fmt.Sprintf("%s %s: %v", e.Op, e.URL, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Fetch sends one GET and reads the body up to the cap. Redirects come
// back as a Response with Location set.
func (f *Fetcher) Fetch(ctx context.Context, r Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, &Error{Op: "request", URL: r.URL, Err: err}
	}
	req.Header = f.plain
	if r.ETag != "" || r.LastModified != "" {
		req.Header = f.plain.Clone()
	}
	if r.ETag != "" {
		req.Header.Set("If-None-Match", r.ETag)
	}
	if r.LastModified != "" {
		req.Header.Set("If-Modified-Since", r.LastModified)
	}
	start := f.opts.Now()
	resp, err := f.send(f.traceCapture(req)) // not Do: its headers are set, and shared
	if err != nil {
		return nil, &Error{Op: "request", URL: r.URL, Err: err, Timeout: isTimeout(err)}
	}
	defer resp.Body.Close()
	out := &Response{URL: r.URL, Status: resp.StatusCode, Header: resp.Header, Started: start,
		ContentType: resp.Header.Get("Content-Type")}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		out.Location = resolveLocation(r.URL, resp.Header.Get("Location"))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 && !r.Control && !accepted(f.opts.AcceptTypes, out.ContentType) {
		out.Unaccepted = true
		out.Duration = f.opts.Now().Sub(start)
		return out, nil
	}
	body, err := readBody(resp.Body, resp.ContentLength, f.opts.MaxBody)
	if err != nil {
		return nil, &Error{Op: "read body", URL: r.URL, Err: err, Timeout: isTimeout(err)}
	}
	if int64(len(body)) > f.opts.MaxBody {
		body, out.Truncated = body[:f.opts.MaxBody], true
	}
	out.Body = body
	out.Duration = f.opts.Now().Sub(start)
	return out, nil
}

// maxSizeHint bounds the buffer a body's Content-Length reserves before a
// byte of it has come: a server may announce megabytes and send nothing.
const maxSizeHint = 256 << 10

// readBody is io.ReadAll(io.LimitReader(r, max+1)) with a first buffer
// the size of the body when its length is known (size >= 0), up to
// maxSizeHint: ReadAll starts at 512 bytes and grows by copying, a copy
// and a discarded buffer at each doubling.
func readBody(r io.Reader, size, max int64) ([]byte, error) {
	r = io.LimitReader(r, max+1)
	if size < 0 {
		return io.ReadAll(r)
	}
	// One byte more than announced: the read that sees the end needs room,
	// or the buffer would double just to find it.
	b := make([]byte, 0, min(size, max, maxSizeHint)+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow, as ReadAll does
		}
	}
}

// Open sends one GET and returns the response with its body unread, for
// callers that stream it (sitemaps). The total timeout covers the reading
// too: call done, after closing the body, to release it.
func (f *Fetcher) Open(ctx context.Context, url string) (resp *http.Response, done context.CancelFunc, err error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, nil, &Error{Op: "request", URL: url, Err: err}
	}
	resp, err = f.Do(req)
	if err != nil {
		cancel()
		return nil, nil, &Error{Op: "request", URL: url, Err: err, Timeout: isTimeout(err)}
	}
	return resp, cancel, nil
}

// ResolveLocation resolves a redirect's Location against the URL that
// answered, "" when it does not parse.
func ResolveLocation(base, loc string) string { return resolveLocation(base, loc) }

func resolveLocation(base, loc string) string {
	if loc == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	u, err := b.Parse(loc)
	if err != nil {
		return ""
	}
	return u.String()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// accepted reports whether contentType's media type is one of types
// (each "type/subtype" or "type/*"); every type is when types is empty,
// and so is a missing Content-Type.
func accepted(types []string, contentType string) bool {
	if len(types) == 0 || strings.TrimSpace(contentType) == "" {
		return true
	}
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	for _, t := range types {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == mt || strings.HasSuffix(t, "/*") && strings.HasPrefix(mt, t[:len(t)-1]) {
			return true
		}
	}
	return false
}
