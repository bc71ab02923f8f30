package crawler

import (
	"context"
	"errors"
	"net/url"
	"runtime"
	"time"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/extract"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/crawler/sitemap"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

type taskKind int

const (
	taskPage taskKind = iota
	taskRobots
	taskSitemap
	taskTDMRep // an origin's /.well-known/tdmrep.json (see contentuse.go)
)

// task is one request a worker makes for the coordinator.
type task struct {
	kind    taskKind
	host    string // authority the request goes to
	url     string // page URL, or the robots.txt URL of this hop
	seq     uint64 // queue position of a page
	etag    string
	lastMod string
	// fetchedAt is when a page being rechecked was last fetched, and
	// payload its archived payload digest (the capture a 304 refers to).
	fetchedAt time.Time
	payload   string
	origin    string              // robots: the origin whose robots.txt this is
	robots    *robotscache.Result // robots: the fetch so far (hops)
	// ctx is the request's context and stop ends it, reporting whether
	// CancelHosts cut it short; begin, called by the worker that takes
	// the task, reports false if CancelHosts took it back first (see
	// cancellable). All set at dispatch; the task of a result handed in
	// for a task taken back has none of them.
	ctx   context.Context
	stop  func() bool
	begin func() bool
	// claim tells this task's request from others to the same host;
	// notifySent asks the worker to report when it went out, at once (its
	// IP group's other hosts wait for that: see frontier's Sent).
	claim      uint64
	notifySent bool
	// keepBody: a page's body is kept (storage.store_bodies, or its
	// host's override); noWARC: its host's override keeps its exchanges
	// out of the WARC files.
	keepBody, noWARC bool
	// useSite are the content-use statements of a page's robots.txt and
	// tdmrep.json (see siteUse), read at dispatch.
	useSite []contentuse.Statement
	// addr is where the request connects: the address its host's IP
	// group was made for (see frontier's address.go).
	addr fetch.Address
}

// sentNote reports when a task's request went out.
type sentNote struct {
	host  string
	claim uint64
	at    time.Time
}

// result is what a worker hands back. Exactly one of page, robots is set.
type result struct {
	task     task
	started  time.Time
	page     *fetch.Response
	parsed   *extract.Page
	parseErr error
	err      error
	robots   *robotscache.Result
	gzBody   []byte // the body compressed for storage, when it is to be kept
	entries  []sitemap.Entry
	smResult sitemap.Result
	next     string             // robots: a redirect still to follow
	sent     time.Time          // when the request was written to the connection; zero if never
	links    *frontier.Outlinks // a page's outlinks, normalised on the worker
	freed    bool               // a link-heavy page whose links are admitted in chunks (see startPending)
	// interrupted: CancelHosts cut the request short (the host went to
	// another node); the URL stays queued.
	interrupted bool
	bodyLen     int           // the page body's length (the body itself is dropped by then)
	fingerprint uint64        // the body's hash, for the recheck schedule (see bodyFingerprint)
	ip          string        // the IP the request's connection went to, if known
	ttfb        time.Duration // from the request's write to its answer's first byte; 0 if unknown
	// archived is what the WARC writer did with the exchange, archiveErr
	// why it could not (Config.Archive only).
	archived   *archive.Written
	archiveErr error
	// uses are the content-use signals of a page's response and its
	// robots.txt; refusal, when set, is the one that says no to the
	// declared purpose: the response is fetched but not stored.
	uses    contentuse.Uses
	refusal *contentuse.Refusal
	tdm     contentuse.Answer // what a tdmrep.json request got
}

// notCut is the stop of a task no CancelHosts can cut (outside a cluster).
func notCut() bool { return false }

// worker runs tasks until tasks is closed. It never sleeps for politeness:
// a task arrives only when its host's slot is open.
func (p *pool) worker(ctx context.Context, tasks <-chan task, results chan<- result) {
	for t := range tasks {
		// The task is the worker's only once past the gate: until then
		// (workers lowered live leave goroutines waiting there) CancelHosts
		// may still take it back.
		entered := p.gate.Enter()
		if t.begin != nil && !t.begin() {
			// Taken back: its result was handed in for it.
			if entered {
				p.gate.Leave()
			}
			p.cuts.Skip()
			continue
		}
		if !entered {
			// It waited for a worker past the stop: no new requests.
			if t.stop != nil {
				t.stop()
			}
			results <- result{task: t, interrupted: true}
			continue
		}
		if t.ctx == nil {
			t.ctx, t.stop = ctx, notCut
		}
		r := p.run(t)
		p.gate.Leave()
		if r.page != nil {
			// Everything that needs the body is done: the result may
			// wait a while to be recorded, and bodies can be big.
			r.bodyLen, r.fingerprint = len(r.page.Body), bodyFingerprint(r.page)
			r.page.Body = nil
		}
		results <- r
	}
}

func (p *pool) run(t task) (r result) {
	r = result{task: t, started: p.cfg.Now()}
	ctx := t.ctx
	defer func() {
		// Cut short by CancelHosts (not by the crawl stopping): the URL
		// stays queued, as at a stop.
		r.interrupted = t.stop()
	}()
	ctx, capt := p.startCapture(ctx, t)
	defer p.archiveExchange(&r, capt) // runs last, once r is complete
	// Note when the request really leaves (after connecting): politeness
	// counts from there; its IP group's other hosts may wait to hear.
	var notify func(time.Time)
	if t.notifySent {
		// The note is made from copies: a closure holding t itself would
		// move the whole task to the heap for every request.
		host, claim := t.host, t.claim
		notify = func(at time.Time) {
			select {
			case p.sentNotes <- sentNote{host: host, claim: claim, at: at}:
			default: // the channel has room for one per task; if not, receive reports it
			}
		}
	}
	ctx, trace := fetch.NewTrace(ctx, p.cfg.Now, notify)
	defer func() { r.sent, r.ip, r.ttfb = trace.Sent(), trace.IP(), trace.TTFB() }()
	if t.addr.Host != "" {
		ctx = fetch.WithAddress(ctx, t.addr)
	}
	if t.kind == taskRobots {
		rr := robotscache.Result{URL: t.origin + "/robots.txt", FinalURL: t.url}
		if t.robots != nil {
			rr = *t.robots
		}
		r.next = robotscache.Step(ctx, p.fetcher, t.url, p.cfg.Fetch.UserAgent, &rr)
		r.robots = &rr
		return r
	}
	if t.kind == taskSitemap {
		p.readSitemap(ctx, t, &r)
		return r
	}
	if t.kind == taskTDMRep {
		p.readTDMRep(ctx, t, &r)
		return r
	}
	resp, err := p.fetcher.Fetch(ctx, fetch.Request{URL: t.url, ETag: t.etag, LastModified: t.lastMod})
	if err != nil {
		r.err = err
		return r
	}
	r.page = resp
	if resp.Status >= 200 && resp.Status < 300 && extract.IsHTML(resp.ContentType, resp.Body) {
		u, err := url.Parse(t.url)
		if err == nil {
			if err := p.parseBig.acquire(ctx, len(resp.Body)); err != nil {
				r.err = err
				return r
			}
			r.parsed, r.parseErr = extract.Parse(resp.Body, u, resp.Header,
				extract.Options{Agent: p.cfg.Agent, MaxLinks: p.cfg.MaxLinksPerPage})
			p.parseBig.release(len(resp.Body))
		}
	} else if resp.Status >= 200 && resp.Status < 300 {
		r.parsed = &extract.Page{Links: []string{}, Directives: extract.Header(resp.Header, p.cfg.Agent)}
	}
	r.uses, r.refusal = contentuse.ResponseUse(p.cfg.Purpose, p.cfg.Agent, t.useSite, resp, r.parsed)
	if r.parsed != nil {
		pl := normaliseLinks(r.parsed, p.cfg.MaxLinksPerPage)
		r.links = &pl
		r.parsed.Links = nil
	}
	if t.keepBody && r.parsed != nil && !r.parsed.Directives.NoIndex && r.refusal == nil {
		// Compressing here keeps the work off the coordinator.
		r.gzBody, _ = storage.CompressBody(resp.Body)
	}
	return r
}

// cancelled reports whether a fetch failed only because the crawl is
// stopping; such URLs stay queued untouched.
func cancelled(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// readSitemap streams a sitemap file into the parser; only the listed
// URLs are kept in memory, never the file.
func (p *pool) readSitemap(ctx context.Context, t task, r *result) {
	resp, done, err := p.fetcher.Open(ctx, t.url)
	if err != nil {
		r.err = err
		return
	}
	defer done()
	defer resp.Body.Close()
	r.page = &fetch.Response{URL: t.url, Status: resp.StatusCode, Header: resp.Header, Started: r.started,
		ContentType: resp.Header.Get("Content-Type")}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		r.smResult, r.parseErr = sitemap.Parse(resp.Body, sitemap.Options{}, func(e sitemap.Entry) {
			r.entries = append(r.entries, e)
		})
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.page.Location = fetch.ResolveLocation(t.url, resp.Header.Get("Location"))
	}
	r.page.Duration = p.cfg.Now().Sub(r.started)
}

// bigBody is the body size from which a page's parse takes a bigParses
// slot: a parsed document costs many times its size in memory, and eight
// workers parsing 10 MiB pages at once would need gigabytes.
const bigBody = 1 << 20

// parseGate admits a bounded number of parses of big bodies at a time
// (half the CPUs, at least one: the coordinator and the small pages keep
// the rest); small ones pass freely. The zero value is not usable: see
// newParseGate.
type parseGate chan struct{}

func newParseGate() parseGate { return make(parseGate, max(1, runtime.GOMAXPROCS(0)/2)) }

func (g parseGate) acquire(ctx context.Context, size int) error {
	if size < bigBody {
		return nil
	}
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g parseGate) release(size int) {
	if size >= bigBody {
		<-g
	}
}
