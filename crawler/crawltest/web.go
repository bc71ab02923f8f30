package crawltest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
)

// Page is one resource a host serves.
type Page struct {
	Status int               // default 200
	Body   string            // may contain {{host:NAME}} for another host's base URL
	Header map[string]string // e.g. Content-Type, X-Robots-Tag, Location
	// Fail answers Status FailStatus (with FailHeader) to the first
	// FailTimes requests, then serves normally.
	FailTimes  int
	FailStatus int
	FailHeader map[string]string
	Delay      time.Duration // server think time before answering (cut short when the client goes)
	// ETag and LastModified, when set, are sent, and a request whose
	// If-None-Match (or, without it, If-Modified-Since) matches gets 304.
	ETag         string
	LastModified string
}

// Request is one request a host received.
type Request struct {
	Path  string    // path and query
	Start time.Time // when the handler started
	End   time.Time // when the handler returned
	// Arrived is when the request's first bytes reached the server's
	// socket, by the kernel's clock (Linux; elsewhere, Start). Gaps
	// between requests are judged by it: a handler can start late.
	Arrived         time.Time
	UA              string
	IfNoneMatch     string
	IfModifiedSince string
	Status          int
}

// connKey holds a request's connection in its context.
type connKey struct{}

// Host is one site of a Web.
type Host struct {
	Name    string
	Server  *httptest.Server // nil for a PipeNet host
	web     *Web
	base    string // http://host:port
	closeFn func()

	mu        sync.Mutex
	pages     map[string]*Page
	gen       func(key string) *Page // pages not in the map, made on request
	served    map[string]int
	log       []Request
	inFlight  int
	maxFlight int
	load      *load // nil: each page's Delay
}

// Web is a set of hosts that link to each other.
type Web struct {
	mu    sync.Mutex
	hosts map[string]*Host
	order []string
}

// NewWeb returns an empty web; add hosts with AddHost, then Close it.
func NewWeb() *Web { return &Web{hosts: map[string]*Host{}} }

// AddHost starts a loopback server named name serving pages (keyed by
// path and query, "/robots.txt" included).
func (w *Web) AddHost(name string, pages map[string]*Page) *Host {
	h := &Host{Name: name, web: w, pages: pages, served: map[string]int{}}
	h.Server = httptest.NewUnstartedServer(http.HandlerFunc(h.serve))
	h.Server.Listener = wrapListener(h.Server.Listener)
	h.Server.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	h.Server.Start()
	h.base, h.closeFn = h.Server.URL, h.Server.Close
	w.mu.Lock()
	w.hosts[name] = h
	w.order = append(w.order, name)
	w.mu.Unlock()
	return h
}

// Host returns a host by name.
func (w *Web) Host(name string) *Host {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hosts[name]
}

// Hosts returns the hosts in the order they were added.
func (w *Web) Hosts() []*Host {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*Host, len(w.order))
	for i, n := range w.order {
		out[i] = w.hosts[n]
	}
	return out
}

// Close stops every server.
func (w *Web) Close() {
	for _, h := range w.Hosts() {
		h.closeFn()
	}
}

// URL is the host's base URL plus path.
func (h *Host) URL(path string) string { return h.base + path }

// Authority is the host's host:port.
func (h *Host) Authority() string { return strings.TrimPrefix(h.base, "http://") }

// SetPage adds or replaces a page while the web runs.
func (h *Host) SetPage(path string, p *Page) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pages[path] = p
}

func (h *Host) serve(w http.ResponseWriter, r *http.Request) {
	key := r.URL.RequestURI()
	start := time.Now()
	arrived := start
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		if t := arrival(c); !t.IsZero() && t.Before(start) {
			arrived = t
		}
	}
	h.mu.Lock()
	h.inFlight++
	h.maxFlight = max(h.maxFlight, h.inFlight)
	i := len(h.log)
	h.log = append(h.log, Request{Path: key, Start: start, Arrived: arrived, UA: r.UserAgent(),
		IfNoneMatch: r.Header.Get("If-None-Match"), IfModifiedSince: r.Header.Get("If-Modified-Since")})
	p := h.pages[key]
	if p == nil && h.gen != nil {
		p = h.gen(key)
	}
	h.served[key]++
	n := h.served[key]
	var delay time.Duration
	if p != nil {
		delay = p.Delay
	}
	if h.load != nil {
		delay = h.load.delay(h.log[:i], start)
	}
	h.mu.Unlock()
	rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	w = rw
	defer func() {
		h.mu.Lock()
		h.inFlight--
		h.log[i].End = time.Now()
		h.log[i].Status = rw.status
		h.mu.Unlock()
	}()
	if p == nil {
		http.NotFound(w, r)
		return
	}
	if delay > 0 {
		// Until the client gives up (a hanging page ends with it).
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	h.respond(w, r, p, n)
}

// respond answers r with page p, served n times so far: its failure
// while n is within p.FailTimes, a 304 when r's validators match, the
// page otherwise.
func (h *Host) respond(w http.ResponseWriter, r *http.Request, p *Page, n int) {
	if n <= p.FailTimes {
		for k, v := range p.FailHeader {
			w.Header().Set(k, v)
		}
		w.WriteHeader(p.FailStatus)
		return
	}
	for k, v := range p.Header {
		w.Header().Set(k, h.expand(v))
	}
	if p.ETag != "" {
		w.Header().Set("ETag", p.ETag)
	}
	if p.LastModified != "" {
		w.Header().Set("Last-Modified", p.LastModified)
	}
	inm, ims := r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
	if p.ETag != "" && inm == p.ETag || inm == "" && p.LastModified != "" && ims == p.LastModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	status := p.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	fmt.Fprint(w, h.expand(p.Body))
}

// expand replaces {{host:NAME}} with that host's base URL.
func (h *Host) expand(s string) string {
	for strings.Contains(s, "{{host:") {
		i := strings.Index(s, "{{host:")
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			break
		}
		name := s[i+7 : i+j]
		repl := "http://unknown.invalid"
		if o := h.web.Host(name); o != nil {
			repl = o.base
		}
		s = s[:i] + repl + s[i+j+2:]
	}
	return s
}

// Log returns a copy of the requests received, in arrival order.
func (h *Host) Log() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.log...)
}

// Count returns how many times path was requested.
func (h *Host) Count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.served[path]
}

// Paths returns every requested path, sorted, with repeats.
func (h *Host) Paths() []string {
	var out []string
	for _, r := range h.Log() {
		out = append(out, r.Path)
	}
	sort.Strings(out)
	return out
}

// MaxInFlight is the most requests the host ever had open at once.
func (h *Host) MaxInFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.maxFlight
}

// Violations checks the host's log against the politeness rules and
// returns one line per breach: the first request was not robots.txt, two
// requests overlapped, a gap between two arrivals was below minGap (allowing
// slack for timer granularity), or a path in forbidden was requested.
func (h *Host) Violations(minGap, slack time.Duration, forbidden func(path string) bool) []string {
	var v []string
	log := h.Log()
	if len(log) > 0 && log[0].Path != "/robots.txt" {
		v = append(v, fmt.Sprintf("%s: first request %s, not /robots.txt", h.Name, log[0].Path))
	}
	if h.MaxInFlight() > 1 {
		v = append(v, fmt.Sprintf("%s: %d requests in flight at once", h.Name, h.MaxInFlight()))
	}
	for i := 1; i < len(log); i++ {
		if gap := log[i].Arrived.Sub(log[i-1].Arrived); gap < minGap-slack {
			v = append(v, fmt.Sprintf("%s: %s started %v after %s (want >= %v)", h.Name, log[i].Path, gap, log[i-1].Path, minGap))
		}
	}
	for _, r := range log {
		if forbidden != nil && forbidden(r.Path) {
			v = append(v, fmt.Sprintf("%s: forbidden %s requested", h.Name, r.Path))
		}
	}
	return v
}

// MinGap returns the smallest gap between two arrivals in the log (0 with fewer
// than two requests).
func (h *Host) MinGap() time.Duration {
	log := h.Log()
	var m time.Duration
	for i := 1; i < len(log); i++ {
		if g := log[i].Arrived.Sub(log[i-1].Arrived); i == 1 || g < m {
			m = g
		}
	}
	return m
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
