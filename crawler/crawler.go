package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/cuts"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/fifo"
	"github.com/politecrawl/politecrawl/crawler/gate"
	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/crawler/resolve"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/crawler/robotswait"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/scope"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// flagRunning is set while a crawl runs and cleared on a clean stop.
const flagRunning = "running"

// Crawler is one crawl over one state file. Create it with New and call
// Run once. Its state is owned by the goroutine running Run.
type Crawler struct {
	cfg  Config
	db   *storage.DB
	log  *slog.Logger
	work *pool // the workers: fetch, parse, archive
	// front owns every host: admission, queues, slots, claims, backoff
	// and the work besides the queue (robots.txt hops: tasks).
	front   *frontier.Frontier[task]
	robots  *robotscache.Cache // every origin's robots.txt lifecycle
	rules   *siteRules         // what each URL's site allows (robots.txt, content use)
	why     *explainer         // Explain's answers
	urls    *urlWriter         // writes URL records and notes their outcomes
	node    *NodeEngine        // the crawl's side of its cluster node
	origins *robotsOutcomes    // what robots.txt results do
	lookups *hostLookups       // hosts' names, looked up before their first request
	waits   *robotswait.Notice // the "only waiting on robots.txt" notice

	inflight     int                // tasks handed to workers and not back yet (waiting ones too)
	tasks        chan task          // to the workers (see aheadOf); nil outside Run
	received     fifo.Queue[result] // results back from workers, waiting to be recorded
	receivedSize int                // their weight in memory (see resultSize)
	pending      []*pendingPage     // link-heavy pages whose links are being admitted
	// commits holds the batch being built and the one being committed;
	// each batch's outcomes (Events) are reported once it committed
	// (see commit.go).
	commits *groupcommit.Pipeline[Event]

	fetchCtx  context.Context
	fatal     error // a storage failure in a control call: Run stops with it
	crashed   bool  // the previous run did not stop cleanly
	abandoned bool  // the stop gave up on busy workers

	cuts *cuts.Registry[task] // dispatched tasks CancelHosts may cut (cluster nodes)

	watch watch // what status shows besides the state file (status.go)

	control chan call     // functions to run on the coordinator
	stopped chan struct{} // closed when Run returns
}

// pool is the crawl's workers: the goroutines that make the requests and
// do what needs the body (parse, normalise links, compress, archive), and
// what they share. A task reaches a worker only when its host's slot is
// open; a worker never touches the coordinator's state.
type pool struct {
	cfg       *Config
	fetcher   *fetch.Fetcher
	parseBig  parseGate            // bounds concurrent parses of big pages (memory)
	cuts      *cuts.Registry[task] // tasks CancelHosts may take back (cluster nodes)
	sentNotes chan sentNote        // to the coordinator: spaced requests that went out (see task.notifySent)
	spawn     func()               // starts one more worker (Run sets it)
	workers   int                  // worker goroutines started
	gate      *gate.Gate           // at most cfg.Workers of them run a task at once
}

// grow starts workers up to cfg.Workers (a live reconfiguration may
// raise it; lowering it leaves some idle: the gate keeps them from running
// more tasks at once than cfg.Workers).
func (p *pool) grow() {
	if p.gate != nil {
		p.gate.SetLimit(p.cfg.Workers)
	}
	for p.spawn != nil && p.workers < p.cfg.Workers {
		p.spawn()
		p.workers++
	}
}

// New prepares a crawl on db: it restores hosts, queues and robots.txt
// state from the file and admits the seeds (seeds seen before are left as
// they are, so a resumed crawl continues where it stopped).
func New(db *storage.DB, cfg Config) (*Crawler, error) {
	cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Crawler{
		cfg: cfg, db: db, log: cfg.Logger,
		robots: robotscache.NewCache(robotscache.Policy{TTL: cfg.RobotsTTL, Retries: cfg.RobotsRetries,
			RetryBase: cfg.RobotsRetryBase, MaxHold: cfg.MaxHold}),
		control: make(chan call),
		cuts:    cuts.New[task](),
		watch:   watch{activity: status.NewActivity()},
		stopped: make(chan struct{}),
	}
	c.rules = &siteRules{cfg: &c.cfg, log: c.log, robots: c.robots}
	if cfg.Purpose != "" {
		c.rules.sites = contentuse.NewSites(cfg.RobotsTTL)
	}
	c.lookups = &hostLookups{
		resolver: resolve.New(resolve.Options{Lookup: cfg.Lookup, TTL: cfg.DNSTTL, Timeout: cfg.Fetch.ConnectTimeout, Now: cfg.Now}),
		log:      cfg.Logger, now: cfg.Now,
	}
	c.work = &pool{cfg: &c.cfg, fetcher: fetch.New(withClock(cfg.Fetch, cfg.Now)), parseBig: newParseGate(), cuts: c.cuts}
	// The WARC records of a batch's results are on disk before any
	// transaction records them.
	var syncArchive func() error
	if cfg.Archive != nil {
		syncArchive = cfg.Archive.Sync
	}
	c.commits = groupcommit.New(db, groupcommit.Options[Event]{Now: cfg.Now, Sync: syncArchive, Committed: c.committed})
	scope, err := c.scope()
	if err != nil {
		return nil, err
	}
	var divert func(frontier.Candidate)
	if cfg.Node != nil {
		divert = cfg.Node.Divert // admitted by its shard's owner, through Admit
	}
	c.front = frontier.New[task](frontier.Options{
		Scope: scope, Hosts: frontier.NewOverrides(cfg.Hosts), Limits: cfg.Limits,
		Delays:        cfg.delayPolicy(),
		ResolveFirst:  true,
		IPMaxInFlight: cfg.IPMaxInFlight, IPDelay: cfg.IPDelay,
		Backoff: frontier.Backoff{Base: cfg.BackoffBase, Max: cfg.BackoffMax, MaxHold: cfg.MaxHold, Jitter: jitter},
		Recrawl: cfg.Recrawl, Freshness: cfg.Freshness, Robots: c.rules, Now: cfg.Now, Log: cfg.Logger,
		Sitemaps: frontier.SitemapPolicy{Use: cfg.Sitemaps, MaxPerHost: cfg.MaxSitemapsPerHost, MaxRetries: cfg.MaxRetries},
		Divert:   divert,
	})
	c.lookups.front = c.front
	c.urls = &urlWriter{cfg: &c.cfg, log: c.log, front: c.front, commits: c.commits}
	c.origins = &robotsOutcomes{cfg: &c.cfg, log: c.log, front: c.front, robots: c.robots, commits: c.commits, urls: c.urls}
	c.node = &NodeEngine{cfg: &c.cfg, db: db, front: c.front, robots: c.robots, commits: c.commits, urls: c.urls, cuts: c.cuts, co: c, origins: c.origins}
	c.waits = &robotswait.Notice{Log: c.log, Robots: c.robots, Hosts: c.front, Retries: cfg.RobotsRetries, Daemon: cfg.Recrawl > 0}
	c.why = &explainer{cfg: &c.cfg, db: db, front: c.front, commits: c.commits, rules: c.rules}
	if err := c.restore(); err != nil {
		return nil, err
	}
	if err := loadDigests(db, cfg.Archive); err != nil {
		return nil, err
	}
	if err := c.addSeeds(cfg.Seeds); err != nil {
		return nil, err
	}
	return c, nil
}

// scope compiles the crawl's scope rules: Config.Scope and Rules, with
// the seeds (the default scope, and seed_prefix's).
func (c *Crawler) scope() (*scope.Scope, error) {
	for _, s := range c.cfg.Seeds {
		if _, err := urlnorm.Normalise(s); err != nil {
			return nil, fmt.Errorf("seed %q: %w", s, err)
		}
	}
	rules := c.cfg.Rules
	rules.Hosts = c.cfg.Scope
	if rules.Seeds == nil {
		// Set apart from Seeds by a caller that admits no seeds (why).
		rules.Seeds = c.cfg.Seeds
	}
	s, err := scope.Compile(rules)
	if err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	return s, nil
}

// restore loads everything the coordinator keeps in memory: per host, not
// per URL.
func (c *Crawler) restore() error {
	if err := c.db.Update(func(tx *storage.Tx) error { return requeueUnreachable(tx, c.log) }); err != nil {
		return err
	}
	if err := c.db.Update(c.front.PlanSweep); err != nil {
		return err
	}
	return c.db.Update(func(tx *storage.Tx) error {
		c.crashed = tx.Flag(flagRunning)
		if err := tx.ForEachRobots(func(origin string, r *storage.RobotsRecord) error {
			c.robots.Restore(origin, r, c.cfg.Now())
			return nil
		}); err != nil {
			return err
		}
		if err := c.rules.sites.Load(tx); err != nil {
			return err
		}
		if err := c.front.Restore(tx, c.crashed, c.cfg.Now()); err != nil {
			return err
		}
		// Hosts were restored with the interval they were spaced by (or
		// more); the config's overrides and the restored robots.txt
		// rules decide it now, as on a reload.
		c.origins.reapplyDelays(c.cfg.Now())
		return nil
	})
}

// maxWorkers bounds Config.Workers.
const maxWorkers = 1024

func (c *Crawler) addSeeds(seeds []string) error {
	return c.db.Update(func(tx *storage.Tx) error {
		for _, s := range seeds {
			n, err := urlnorm.Normalise(s)
			if err != nil {
				return fmt.Errorf("seed %q: %w", s, err)
			}
			if err := c.urls.discover(tx, frontier.Candidate{URL: n, Via: "seed"}); err != nil {
				return err
			}
		}
		return nil
	})
}

// discover admits a candidate and, when it is queued, gives its host work.
func (c *urlWriter) discover(tx *storage.Tx, cand frontier.Candidate) error {
	_, err := c.front.Discover(tx, cand, c.cfg.Now())
	c.reportRefusals()
	return err
}

// reportRefusals reports the URLs the frontier refused for their origin's
// robots.txt as outcomes of the batch being built.
func (c *urlWriter) reportRefusals() {
	for _, a := range c.front.Refusals() {
		c.event(Event{URL: a.URL, State: string(a.State), Reason: a.Reason})
	}
}

// Run crawls until the frontier is drained or ctx is cancelled; both
// return nil after an orderly stop. Errors are storage failures.
func (c *Crawler) Run(ctx context.Context) error {
	defer close(c.stopped)
	c.watch.started = c.cfg.Now()
	fetchCtx, cancelFetch := context.WithCancel(context.Background())
	defer cancelFetch()
	c.fetchCtx = fetchCtx
	if err := c.db.Update(func(tx *storage.Tx) error { return tx.SetFlag(flagRunning, true) }); err != nil {
		return err
	}
	// Room for every task there can be (workers and those waiting for
	// one, see aheadOf), so the coordinator never blocks on a send, and
	// for a result of each, so no worker blocks on its last send.
	tasks := make(chan task, maxWorkers+aheadOf(maxWorkers))
	results := make(chan result, maxWorkers+aheadOf(maxWorkers))
	c.tasks = tasks
	c.cuts.Withdrawn = func(t task) {
		// The results channel has room for a result of every task in
		// flight, this one's included, so the send does not wait; from
		// a goroutine all the same, as the registry's lock is held.
		go func() { results <- result{task: t, interrupted: true} }()
	}
	// At most one note per task.
	c.work.sentNotes = make(chan sentNote, maxWorkers+aheadOf(maxWorkers))
	var wg sync.WaitGroup
	c.work.gate = gate.New(c.cfg.Workers)
	c.work.spawn = func() { wg.Go(func() { c.work.worker(fetchCtx, tasks, results) }) }
	c.work.grow()
	c.commits.Start()
	c.lookups.resolver.Start(fetchCtx)
	defer c.lookups.resolver.Stop()
	// From the moment of a stop, tasks still waiting for a worker, in the
	// channel or at the gate, come back unsent, even while the
	// coordinator is busy (say, waiting on a commit) and has not seen the
	// stop yet.
	unwatch := context.AfterFunc(ctx, c.work.gate.Shutdown)
	defer unwatch()
	err := c.loop(ctx, tasks, results)
	c.work.gate.Shutdown()
	if err == nil {
		err = c.finishInFlight(results, cancelFetch)
	}
	if err == nil {
		err = c.flush()
	}
	if err == nil {
		err = c.abandonPending()
	}
	close(tasks)
	cancelFetch()
	c.waitWorkers(&wg)
	if cerr := c.commits.Stop(); err == nil {
		err = cerr
	}
	c.work.fetcher.Close()
	if err != nil {
		return err
	}
	return c.db.Update(func(tx *storage.Tx) error { return tx.SetFlag(flagRunning, false) })
}

func (c *Crawler) loop(ctx context.Context, tasks chan<- task, results <-chan result) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	gaugeTick := time.NewTicker(time.Second)
	defer gaugeTick.Stop()
	for {
		if ctx.Err() != nil {
			c.log.Info("stopping: no new requests", "in_flight", c.inflight)
			return nil
		}
		if err := c.promoteDue(); err != nil {
			return err
		}
		wait, err := c.dispatch(tasks)
		if err != nil {
			return err
		}
		c.lookups.ask()
		// Nothing under way and nothing to start: the open batch would
		// only wait to be due, and the crawl's end with it.
		ending := c.inflight == 0 && len(c.pending) == 0 && wait < 0 && c.commits.Batch() != nil
		if c.commits.Committing() == nil && (c.received.Len() > 0 || c.commits.Due() || ending) {
			// Record what came back while the last batch was committed,
			// a chunk at a time, taking in what comes back meanwhile.
			if err := c.recordSome(ending); err != nil {
				return err
			}
			if err := c.receiveReady(results); err != nil {
				return err
			}
			continue
		}
		if did, err := c.longWork(); err != nil {
			return err
		} else if did {
			wait = 0
		}
		wait, drained := c.nextWait(wait)
		if drained {
			// A paused host's URLs keep no run going (frontier.Held says why).
			if held := c.front.Held(); held.Any() {
				c.log.Warn("crawl drained except for paused hosts: their URLs stay queued", held.LogAttrs(c.cfg.ResumeHint)...)
			} else {
				c.log.Info("crawl drained")
			}
			return nil
		}
		timer.Stop()
		if wait >= 0 {
			timer.Reset(wait)
		}
		select {
		case r := <-results:
			if err := c.receive(r); err != nil {
				return err
			}
		case <-c.cuts.Skipped():
		case a := <-c.lookups.resolver.Answers():
			c.lookups.resolved(a)
		case n := <-c.work.sentNotes:
			c.front.Sent(n.host, n.claim, n.at, c.cfg.Now())
		case j := <-c.commits.Done():
			if err := c.commits.Finish(j); err != nil {
				return err
			}
		case <-timer.C:
		case cl := <-c.control:
			cl.fn()
			close(cl.done)
			if c.fatal != nil {
				return c.fatal
			}
		case <-gaugeTick.C:
			c.gauges()
		case <-ctx.Done():
			c.log.Info("stopping: no new requests", "in_flight", c.inflight)
			return nil
		}
	}
}

// nextWait is how long the loop may sleep, given the dispatcher's wait
// (negative: nothing to start), and whether the crawl is drained: nothing
// under way, queued, due or to record, and no recrawl or cluster to wait for.
func (c *Crawler) nextWait(wait time.Duration) (time.Duration, bool) {
	idle := c.inflight == 0 && len(c.pending) == 0 && c.received.Len() == 0 && c.commits.Committing() == nil && c.commits.Batch() == nil &&
		!c.lookups.busy()
	if idle && wait > 0 {
		c.waits.Note(c.cfg.Now())
	}
	if idle && wait < 0 && c.cfg.Recrawl <= 0 && c.cfg.Node == nil {
		return wait, true
	}
	wait = sooner(wait, c.front.NextDue(), c.cfg.Now())
	if c.commits.Batch() != nil && c.commits.Committing() == nil {
		// The open batch is handed over when due.
		wait = sooner(wait, c.commits.DueAt(), c.cfg.Now())
	}
	return wait, false
}

// longWork does a chunk of the long work under way, if any, and reports
// whether there was some: the links of a link-heavy page are admitted a
// chunk per turn, else the recrawl schedule being redone, and everything
// else is served in between.
func (c *Crawler) longWork() (bool, error) {
	switch {
	case len(c.pending) > 0:
		return true, c.admitChunk()
	case c.front.Sweeping():
		return true, c.sweepSome()
	}
	return false, nil
}

// sooner is wait (-1: nothing to wait for), or how long until at if that
// comes first (zero at: none).
func sooner(wait time.Duration, at, now time.Time) time.Duration {
	if at.IsZero() {
		return wait
	}
	if d := max(at.Sub(now), 0); wait < 0 || d < wait {
		return d
	}
	return wait
}

// stopMargin is how long a stop waits, after the shutdown grace has
// cancelled the in-flight fetches, for work that does not watch a context
// (parsing a page that already arrived) before it gives up on it.
const stopMargin = time.Second

// finishInFlight lets in-flight fetches complete for most of
// ShutdownGrace, then cancels the rest; their URLs stay queued. A worker
// still busy when ShutdownGrace is over is given up on: its URL stays queued and its host
// counts a request at this moment, so the restart keeps the spacing.
func (c *Crawler) finishInFlight(results <-chan result, cancelFetch context.CancelFunc) error {
	// The whole stop fits in ShutdownGrace: fetches get all of it but the
	// last stopMargin (or half of it, if it is short).
	margin := min(stopMargin, c.cfg.ShutdownGrace/2)
	grace := time.NewTimer(c.cfg.ShutdownGrace - margin)
	defer grace.Stop()
	var giveUp <-chan time.Time
	for c.inflight > 0 {
		select {
		case r := <-results:
			if err := c.receive(r); err != nil {
				return err
			}
		case <-grace.C:
			c.log.Info("cancelling in-flight fetches; their URLs stay queued", "in_flight", c.inflight)
			cancelFetch()
			giveUp = time.After(margin)
		case <-giveUp:
			return c.abandonInFlight()
		}
	}
	return nil
}

// abandonInFlight records, for every host whose request has not come
// back, a request at this moment: it may have reached the server.
func (c *Crawler) abandonInFlight() error {
	now := c.cfg.Now()
	c.log.Warn("stopping without waiting for busy workers; their URLs stay queued", "in_flight", c.inflight)
	err := c.update(func(tx *storage.Tx) error { return c.front.Abandon(tx, now) })
	if err == nil {
		err = c.commits.WaitCommit()
	}
	if err != nil {
		return fmt.Errorf("stop: keep in-flight hosts' last requests: %w", err)
	}
	c.abandoned = true
	return nil
}

// waitWorkers waits for the workers to return, unless some were given up
// on at the stop: those finish on their own (they touch neither the state
// file nor the coordinator's state) while the process exits, and the stop
// has already waited stopMargin for them.
func (c *Crawler) waitWorkers(wg *sync.WaitGroup) {
	if !c.abandoned {
		wg.Wait()
	}
}

// abandonPending gives up the link-heavy pages whose links were still
// being admitted when the crawl stopped: they stay queued and are fetched
// again after a restart (the links admitted so far are seen then). Their
// hosts' last request times are kept, so the restart spaces them.
func (c *Crawler) abandonPending() error {
	if len(c.pending) == 0 {
		return nil
	}
	err := c.update(func(tx *storage.Tx) error {
		for _, p := range c.pending {
			host := p.r.task.host
			c.front.Returned(host, c.cfg.Now())
			c.front.Started(host, p.r.sent)
			if err := c.front.Save(tx, host); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = c.commits.WaitCommit()
	}
	if err != nil {
		return fmt.Errorf("stop: keep hosts' last requests: %w", err)
	}
	c.log.Info("stopped while admitting links; those pages stay queued", "pages", len(c.pending))
	c.pending = nil
	return nil
}
