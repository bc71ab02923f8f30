package console

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Source is where the console's figures come from: a running crawl.
type Source interface {
	// Status is the crawl's snapshot (the one GET /status serves).
	Status(ctx context.Context) (*status.Status, error)
	// Host reads one host's detail from the state file.
	Host(ctx context.Context, host string) (*status.HostDetail, error)
}

// Options configure a Console. The zero value is usable.
type Options struct {
	// Refresh is how often an open page refreshes itself while the
	// crawl runs; default 5s.
	Refresh time.Duration
	// MaxAge is how long a snapshot is reused for other requests;
	// default 1s.
	MaxAge time.Duration
	// Now is the clock for the snapshot's age; default time.Now.
	Now func() time.Time
	Log *slog.Logger
}

// Console serves the console's pages. Safe for concurrent use.
type Console struct {
	src   Source
	opts  Options
	pages map[string]*template.Template

	mu     sync.Mutex // guards the cached snapshot
	cached *status.Status
	taken  time.Time
}

// New returns a Console reading from src.
func New(src Source, o Options) *Console {
	if o.Refresh <= 0 {
		o.Refresh = 5 * time.Second
	}
	if o.MaxAge <= 0 {
		o.MaxAge = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := &Console{src: src, opts: o, pages: map[string]*template.Template{}}
	for _, name := range []string{"overview", "hosts", "host"} {
		c.pages[name] = template.Must(template.New(name).Funcs(funcs(o.Now)).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return c
}

// Register adds the console's routes to mux: GET / (overview), GET /hosts,
// GET /hosts/{host} and the assets under /console/assets/.
func (c *Console) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", c.serveOverview)
	mux.HandleFunc("GET /hosts", c.serveHosts)
	mux.HandleFunc("GET /hosts/{host}", c.serveHost)
	assets, _ := fs.Sub(assetFS, "assets")
	files := http.StripPrefix("/console/assets/", http.FileServerFS(assets))
	mux.Handle("GET /console/assets/", secure(files))
}

// csp allows nothing but the console's own style sheet and script.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secure sets the console's security headers on every answer.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		h.ServeHTTP(w, r)
	})
}

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// snapshot returns the crawl's status, reusing one younger than MaxAge.
func (c *Console) snapshot(ctx context.Context) (*status.Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	if c.cached != nil && now.Sub(c.taken) < c.opts.MaxAge {
		return c.cached, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := c.src.Status(ctx)
	if err != nil {
		return nil, err
	}
	c.cached, c.taken = st, now
	return st, nil
}

// page is what every template gets.
type page struct {
	Title   string
	Nav     string
	St      *status.Status
	At      time.Time
	Running bool
	Refresh int
	Err     string

	Over  *overview
	Hosts *hostsPage
	Host  *hostPage
}

func (c *Console) newPage(ctx context.Context, title, nav string) (*page, bool) {
	p := &page{Title: title, Nav: nav, Refresh: int(c.opts.Refresh / time.Second), At: c.opts.Now()}
	st, err := c.snapshot(ctx)
	if err != nil {
		p.Err = "The crawl did not answer: " + err.Error()
		p.St = &status.Status{}
		return p, false
	}
	p.St, p.Running = st, st.Running
	if !st.At.IsZero() {
		p.At = st.At
	}
	return p, true
}

// render executes a page's template into a buffer first, so a failure
// gives a clean 500 rather than half a page.
func (c *Console) render(w http.ResponseWriter, name string, code int, p *page) {
	var buf bytes.Buffer
	if err := c.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		c.opts.Log.Error("console: render", "page", name, "error", err)
		setSecurityHeaders(w.Header())
		http.Error(w, "console: render failed", http.StatusInternalServerError)
		return
	}
	setSecurityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func (c *Console) serveOverview(w http.ResponseWriter, r *http.Request) {
	p, ok := c.newPage(r.Context(), "Overview", "overview")
	code := http.StatusOK
	if ok {
		p.Over = newOverview(p.St)
	} else {
		code = http.StatusServiceUnavailable
	}
	c.render(w, "overview", code, p)
}

func (c *Console) serveHosts(w http.ResponseWriter, r *http.Request) {
	p, ok := c.newPage(r.Context(), "Hosts", "hosts")
	code := http.StatusOK
	if !ok {
		code = http.StatusServiceUnavailable
	}
	p.Hosts = newHostsPage(p.St.PerHost, parseQuery(r.URL.Query()))
	c.render(w, "hosts", code, p)
}

func (c *Console) serveHost(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("host")
	p, ok := c.newPage(r.Context(), name, "hosts")
	hp := &hostPage{Name: name}
	p.Host = hp
	code := http.StatusOK
	if !ok {
		c.render(w, "host", http.StatusServiceUnavailable, p)
		return
	}
	if row, found := findHost(p.St.PerHost, name); found {
		hp.Row = &row
	} else {
		code = http.StatusNotFound
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	d, err := c.src.Host(ctx, name)
	if err != nil {
		p.Err = "Reading the host's records: " + err.Error()
	} else if hp.Row != nil {
		hp.Detail = d
	}
	c.render(w, "host", code, p)
}

// hostPage is one host's page.
type hostPage struct {
	Name   string
	Row    *status.Host
	Detail *status.HostDetail
}

// findHost finds name in hosts (sorted by name, as status.Read returns
// them).
func findHost(hosts []status.Host, name string) (status.Host, bool) {
	lo, hi := 0, len(hosts)
	for lo < hi {
		m := (lo + hi) / 2
		if hosts[m].Host < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(hosts) && hosts[lo].Host == name {
		return hosts[lo], true
	}
	for _, h := range hosts { // not sorted after all
		if h.Host == name {
			return h, true
		}
	}
	return status.Host{}, false
}
