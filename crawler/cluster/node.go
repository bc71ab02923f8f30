package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// NodeOptions are a Node's dependencies; every zero value has a use.
type NodeOptions struct {
	Logger *slog.Logger
	// Now is the clock host timing is read on (default time.Now).
	Now func() time.Time
	// Replicas of the streams and buckets this node creates (default 1).
	Replicas int
	// DefaultDelay is the crawl's politeness.default_delay: the least a
	// shard's new owner waits before its first request to each host.
	DefaultDelay time.Duration
	// Adaptive is the crawl's adaptive delay (politeness.latency_factor,
	// error_backoff, max_delay): a shard's new owner waits, before its
	// first request to each host, the delay it makes of what the previous
	// owner learnt of the host's server. The zero value counts the floor
	// alone.
	Adaptive frontier.Adaptive
	// DrainChecks is how many checks in a row, DrainEvery apart, must find
	// nothing undecided in the whole crawl before Run reports it drained
	// (defaults 3 and 500ms).
	DrainChecks int
	DrainEvery  time.Duration
	// RequestTimeout is the engine's longest request (network.timeout,
	// default 60s): a shard handed over while requests to its hosts still
	// run holds those hosts that long for the next owner.
	RequestTimeout time.Duration
	// HostSync is how often the timing of this node's hosts is written to
	// the hosts bucket (default 1s).
	HostSync time.Duration
}

// Node is one process's part of a clustered crawl: it implements
// crawler.Node for its crawl engine. Every URL the engine discovers is
// published to its host's shard; each shard's owner consumes its messages,
// admits them to its own engine and holds each message unacknowledged
// until the URL is decided, its record written to the records bucket and
// the URLs it found published. So the stream always holds every undecided
// URL of the crawl: a node that dies loses nothing (its shards' consumers
// are recreated by the next owners, which get the messages again), and the
// crawl is drained when the stream is empty.
type Node struct {
	cfg  Config
	opts NodeOptions
	log  *slog.Logger
	now  func() time.Time

	nc      *nats.Conn
	js      jetstream.JetStream
	mgr     *Manager
	hand    *Handoff
	records jetstream.KeyValue
	hosts   jetstream.KeyValue
	robots  jetstream.KeyValue

	crawl Engine
	db    *storage.DB

	mu      sync.Mutex
	shards  map[int]*shardRun               // owned shards
	held    map[string]heldMsg              // URL -> its undecided message, held by this node
	pending map[string][]frontier.Candidate // URLs found by a held URL, published when it is decided
	early   map[string]bool                 // URLs handed over from their worker's result (Fetched), not yet Decided
	jobs    []job                           // for the finisher
	wake    chan struct{}                   // a job was added
	events  []Event                         // from the Manager, for the event loop
	evWake  chan struct{}
	busy    bool // the finisher is working on jobs taken off the list

	mgrStop context.CancelFunc
	mgrDone chan struct{}

	sent, received, dups atomic.Int64
}

// shardRun is this node's ownership of one shard, and the loop that
// serves it (serve, on a goroutine of its own with its own context, ended
// by cancel when the lease is lost or handed over; done closes when it
// returns).
type shardRun struct {
	n        *Node
	shard    int
	token    uint64
	acquired time.Time
	ready    atomic.Bool     // caught up with the shard's messages: its hosts may be served
	timed    map[string]bool // hosts held from the take-over (the shard's goroutine)
	cancel   context.CancelFunc
	done     chan struct{}
}

// heldMsg is an undecided URL's message held by this node.
type heldMsg struct {
	reply string // the delivery's reply subject, where its ack goes
	shard int
	token uint64
	seq   uint64 // stream sequence: a redelivery has the same
}

// job is work for the finisher: URLs to publish, and, for a decided URL,
// its record to write and its message to acknowledge.
type job struct {
	decided string             // the URL decided; "" for publishing only
	record  *storage.URLRecord // its record (nil: read it from the state file)
	found   []frontier.Candidate
	robots  *robotsEntry // a robots.txt read, for the shard's next owner
}

// DialNode connects to the crawl's NATS server(s) and prepares a Node:
// the manager of its leases and the crawl's streams and buckets.
func DialNode(ctx context.Context, cfg Config, opts NodeOptions) (*Node, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.DrainChecks <= 0 {
		opts.DrainChecks = 3
	}
	if opts.DrainEvery <= 0 {
		opts.DrainEvery = 500 * time.Millisecond
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = time.Minute
	}
	if opts.HostSync <= 0 {
		opts.HostSync = time.Second
	}
	n := &Node{cfg: cfg, opts: opts, log: opts.Logger.With("node", cfg.Node), now: opts.Now,
		shards: map[int]*shardRun{}, held: map[string]heldMsg{}, pending: map[string][]frontier.Candidate{}, early: map[string]bool{},
		wake: make(chan struct{}, 1), evWake: make(chan struct{}, 1)}
	nc, js, err := connect(ctx, cfg, n.log)
	if err != nil {
		return nil, err
	}
	n.nc, n.js = nc, js
	fail := func(err error) (*Node, error) { nc.Close(); return nil, err }
	n.mgr, err = NewManager(ctx, js, cfg, ManagerOptions{Now: opts.Now, Logger: opts.Logger, Replicas: opts.Replicas,
		OnEvent: n.onEvent, BeforeRelease: n.beforeRelease, Settle: cfg.LeaseTTL / 4})
	if err != nil {
		return fail(err)
	}
	if n.hand, err = NewHandoff(ctx, js, cfg.Name, cfg.Shards, HandoffOptions{Replicas: opts.Replicas}); err != nil {
		return fail(err)
	}
	if n.records, n.hosts, n.robots, err = crawlBuckets(ctx, js, cfg.Name, opts.Replicas, false); err != nil {
		return fail(err)
	}
	return n, nil
}

// connect opens a NATS connection that keeps trying to reconnect.
func connect(ctx context.Context, cfg Config, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	// Whether the node said it waits for its server, so that the line
	// saying it answers comes after it, once (the connection may come
	// while it is being said).
	const (
		notYet = iota
		waiting
		connected
	)
	var wait atomic.Int32
	opts := []nats.Option{nats.Name("politecrawl " + cfg.Node), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond), nats.Timeout(5 * time.Second)}
	if log != nil {
		// A node (not a client: status, seed, export answer at once) may
		// start before its server, say the node embedding it: it waits
		// for the server until ctx ends (jetstream's own 5 s if ctx has
		// no deadline), trying every 250 ms.
		opts = append(opts, nats.RetryOnFailedConnect(true),
			nats.ConnectHandler(func(nc *nats.Conn) {
				if wait.Swap(connected) == waiting {
					log.Info("cluster: NATS server answers", "server", nc.ConnectedUrlRedacted())
				}
			}))
		// Said once each way: without them, a lost server showed only as
		// failing heartbeats, every 0.75 s, until the leases expired.
		opts = append(opts,
			nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
				if nc.IsClosed() {
					return // this node's own Close, not a loss
				}
				log.Warn("cluster: lost the NATS server; trying again every 250ms (this node stops fetching its shards before their leases can pass to another)", "err", err)
			}),
			nats.ReconnectHandler(func(nc *nats.Conn) {
				log.Info("cluster: NATS server back", "server", nc.ConnectedUrlRedacted())
			}))
	}
	nc, err := nats.Connect(cfg.URLs(), opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: connect to %s: %w", cfg.URLs(), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	if log != nil && !nc.IsConnected() && wait.CompareAndSwap(notYet, waiting) {
		log.Warn("cluster: no NATS server answers yet; waiting for it", "servers", cfg.URLs())
	}
	if _, err := js.AccountInfo(ctx); err != nil {
		connected := nc.IsConnected()
		nc.Close()
		if !connected {
			return nil, nil, fmt.Errorf("cluster: no NATS server answered at %s: %w", cfg.URLs(), err)
		}
		return nil, nil, fmt.Errorf("cluster: %s has no JetStream: %w", cfg.URLs(), err)
	}
	return nc, js, nil
}

// Attach gives the node its crawl engine (created with this node as its
// crawler.Config.Node) and the engine's state file. Call it before Run.
func (n *Node) Attach(e Engine, db *storage.DB) { n.crawl, n.db = e, db }

// Manager is the node's lease manager (for status and metrics).
func (n *Node) Manager() *Manager { return n.mgr }

// Divert implements crawler.Node: a URL the engine discovered goes to its
// shard, after the URL it was found on is decided when this node holds
// that one (so that a death in between finds the finder again, and with it
// this URL), at once otherwise (seeds, sitemap entries).
func (n *Node) Divert(c frontier.Candidate) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.early[c.Parent] {
		return // handed over with its finder (Fetched)
	}
	if _, ok := n.held[c.Parent]; ok && c.Parent != "" {
		n.pending[c.Parent] = append(n.pending[c.Parent], c)
		return
	}
	n.addJob(job{found: []frontier.Candidate{c}})
}

// Robots implements crawler.Node: the file goes to the robots bucket.
func (n *Node) Robots(origin string, r *storage.RobotsRecord) {
	if len(r.Body) > maxRobotsEntry {
		return
	}
	c := *r
	c.GoodBody = nil
	n.mu.Lock()
	defer n.mu.Unlock()
	n.addJob(job{robots: &robotsEntry{Origin: origin, Record: &c}})
}

// Serves implements crawler.Node: this node owns the host's shard and has
// caught up with its messages.
func (n *Node) Serves(host string) bool {
	shard := Shard(host, n.cfg.Shards)
	n.mu.Lock()
	r := n.shards[shard]
	n.mu.Unlock()
	return r != nil && r.ready.Load() && n.mgr.Holds(shard, r.token)
}

// Holds implements crawler.Node.
func (n *Node) Holds(url string) bool {
	n.mu.Lock()
	_, ok := n.held[url]
	n.mu.Unlock()
	return ok
}

// Decided implements crawler.Node: a held URL's final outcome, with its
// record, makes a job for the finisher (while the engine commits it).
func (n *Node) Decided(e crawler.Event, rec *storage.URLRecord) {
	n.mu.Lock()
	early := n.early[e.URL]
	delete(n.early, e.URL)
	n.mu.Unlock()
	if early {
		return // handed over when its result came back (Fetched)
	}
	switch storage.State(e.State) {
	case storage.Fetched, storage.Disallowed, storage.Failed, storage.Skipped:
	default:
		return // a retry, or a sitemap file's outcome: no URL decided
	}
	if e.Reason == crawler.ReleasedReason {
		return // dropped here because another node has it
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	found := n.pending[e.URL]
	delete(n.pending, e.URL)
	if _, ok := n.held[e.URL]; !ok {
		return // handled by another node now; it will find these again
	}
	var r *storage.URLRecord
	if rec != nil && rec.State != storage.Queued {
		c := *rec
		r = &c
	}
	n.addJob(job{decided: e.URL, record: r, found: found})
}

// Fetched implements crawler.Node: a held page's outcome, told as its
// result comes back from the worker, is handed over at once (what it
// found, its record, the ack), so that a kill of this process then costs
// the page no second fetch. Its Decided, and the Divert of what it found,
// come later and are covered by this.
func (n *Node) Fetched(rec *storage.URLRecord, found []frontier.Candidate) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.held[rec.URL]; !ok {
		return // handled by another node now (or never held here)
	}
	n.early[rec.URL] = true
	n.addJob(job{decided: rec.URL, record: rec, found: found})
}

// addJob queues a job for the finisher; n.mu is held.
func (n *Node) addJob(j job) {
	n.jobs = append(n.jobs, j)
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// onEvent is the Manager's OnEvent, on its goroutine: ownership changes
// take effect for Serves and Holds at once (a Lost comes before the lease
// can pass on); the rest happens on the event loop.
func (n *Node) onEvent(e Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e.Kind == Lost {
		if r := n.shards[e.Shard]; r != nil && r.token == e.Token {
			r.ready.Store(false)
			delete(n.shards, e.Shard)
			if e.Reason != "surplus" && e.Reason != "released" {
				// Not handed over on purpose: the lease may pass on at
				// any moment, and with it the shard's messages; the
				// requests under way to its hosts are cut short, so that
				// none still runs when the next owner starts.
				n.forget(e.Shard)
				if n.crawl != nil {
					n.crawl.CancelHosts(func(host string) bool { return Shard(host, n.cfg.Shards) == e.Shard })
				}
			}
			r.cancel()
		}
	}
	n.events = append(n.events, e)
	select {
	case n.evWake <- struct{}{}:
	default:
	}
}

// forget drops what this node held of a shard: the next owner gets the
// messages again. n.mu is held.
func (n *Node) forget(shard int) {
	for url, h := range n.held {
		if h.shard == shard {
			delete(n.held, url)
			delete(n.pending, url)
			delete(n.early, url)
		}
	}
}

// Run takes part in the crawl until it is drained (every URL of the whole
// crawl decided: Run returns nil) or ctx ends (Run returns ctx's error).
// The caller then stops its engine and calls Close. The engine's seeds
// reach their shards through Divert (every node may give them: each URL is
// decided once).
func (n *Node) Run(ctx context.Context) error {
	if n.crawl == nil {
		return errors.New("cluster: Run before Attach")
	}
	mctx, stopMgr := context.WithCancel(context.WithoutCancel(ctx))
	n.mgrStop = stopMgr
	n.mgrDone = make(chan struct{})
	go func() {
		defer close(n.mgrDone)
		if err := n.mgr.Run(mctx); err != nil {
			n.log.Error("lease manager", "err", err)
		}
	}()
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	defer func() { stop(); wg.Wait() }()
	wg.Go(func() { n.finisher(wctx) })
	wg.Go(func() { n.eventLoop(wctx) })
	wg.Go(func() { n.syncHosts(wctx) })
	return n.waitDrained(ctx)
}
