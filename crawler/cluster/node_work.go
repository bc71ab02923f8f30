package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// publish hands URLs to their shards and waits until the server has
// stored them all. The message ID is the URL, so that the server drops a
// URL published twice within its duplicate window.
func (n *Node) publish(ctx context.Context, cands []frontier.Candidate) error {
	if len(cands) == 0 {
		return nil
	}
	futures := make([]jetstream.PubAckFuture, 0, len(cands))
	for _, c := range cands {
		b, _ := json.Marshal(toWire(c))
		shard := Shard(urlnorm.Authority(c.URL), n.cfg.Shards)
		f, err := n.js.PublishAsync(n.hand.subject(shard), b, jetstream.WithMsgID(urlKey(c.URL)))
		if err != nil {
			return fmt.Errorf("hand over %s: %w", c.URL, err)
		}
		futures = append(futures, f)
	}
	if err := wait(ctx, futures); err != nil {
		return fmt.Errorf("hand over URLs: %w", err)
	}
	n.sent.Add(int64(len(cands)))
	return nil
}

// wait waits for every publish to be stored.
func wait(ctx context.Context, futures []jetstream.PubAckFuture) error {
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// finisher publishes what the engine found and completes decided URLs, in
// the order the engine reported them: found URLs are stored, then the
// decided URL's record (only while this node still holds the URL under a
// valid lease), then its message is acknowledged. A failure leaves
// the jobs to try again; a message never acknowledged comes back to the
// shard's next owner, which finds the URL decided or decides it again.
func (n *Node) finisher(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		for {
			n.mu.Lock()
			jobs := n.jobs
			n.jobs = nil
			n.busy = len(jobs) > 0
			n.mu.Unlock()
			if len(jobs) == 0 {
				break
			}
			for ctx.Err() == nil {
				err := n.finish(ctx, jobs)
				if err == nil {
					break
				}
				n.log.Warn("cluster: hand over results; retrying", "err", err)
				pause(ctx, time.Second)
			}
			n.mu.Lock()
			n.busy = false
			n.mu.Unlock()
		}
	}
}

// finish completes a list of jobs (see finisher).
func (n *Node) finish(ctx context.Context, jobs []job) error {
	var found []frontier.Candidate
	var decided, unread []string
	var recs []*storage.URLRecord
	var robots []*robotsEntry
	for _, j := range jobs {
		found = append(found, j.found...)
		if j.decided != "" {
			decided = append(decided, j.decided)
			if j.record != nil {
				recs = append(recs, j.record)
			} else {
				unread = append(unread, j.decided)
			}
		}
		if j.robots != nil {
			robots = append(robots, j.robots)
		}
	}
	if err := n.publish(ctx, found); err != nil {
		return err
	}
	if err := n.putRobots(ctx, robots); err != nil {
		return err
	}
	more, err := n.localRecords(unread)
	if err != nil {
		return err
	}
	recs = n.stillHeld(append(recs, more...))
	if err := n.putRecords(ctx, recs); err != nil {
		return err
	}
	n.mu.Lock()
	var replies []string
	for _, r := range recs { // only what was written down is acknowledged
		if h, ok := n.held[r.URL]; ok {
			replies = append(replies, h.reply)
			delete(n.held, r.URL)
		}
	}
	n.mu.Unlock()
	for _, r := range replies {
		n.ack(r) // a lost ack: delivered again, found decided
	}
	return nil
}

// stillHeld keeps the records of the URLs this node still holds, under a
// lease it may still write under (Manager.MayWrite: held, or being handed
// over on purpose, and valid): a node cut off, whose connection comes back
// after its lease moved, must not write a record over what the shard's
// new owner decides (nor acknowledge its message: it goes to the new
// owner, which decides the URL again).
func (n *Node) stillHeld(recs []*storage.URLRecord) []*storage.URLRecord {
	holds := make([]heldMsg, len(recs))
	ok := make([]bool, len(recs))
	n.mu.Lock()
	for i, r := range recs {
		holds[i], ok[i] = n.held[r.URL]
	}
	n.mu.Unlock()
	out := recs[:0]
	for i, r := range recs {
		if ok[i] && n.mgr.MayWrite(holds[i].shard, holds[i].token) {
			out = append(out, r)
		}
	}
	if dropped := len(recs) - len(out); dropped > 0 {
		n.log.Info("cluster: decided records not written: their URLs are no longer held here", "urls", dropped)
	}
	return out
}

// ack acknowledges a held message by its reply subject, which is all of
// the message a node keeps while it holds the URL (JetStream's ack is a
// "+ACK" sent there).
func (n *Node) ack(reply string) {
	if reply != "" {
		_ = n.nc.Publish(reply, []byte("+ACK"))
	}
}

// localRecords reads the committed records of decided URLs.
func (n *Node) localRecords(urls []string) ([]*storage.URLRecord, error) {
	if len(urls) == 0 {
		return nil, nil
	}
	out := make([]*storage.URLRecord, 0, len(urls))
	err := n.db.View(func(tx *storage.Tx) error {
		for _, u := range urls {
			r, err := tx.GetURL(u)
			if err != nil {
				return err
			}
			if r != nil && r.State != storage.Queued {
				out = append(out, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read decided records: %w", err)
	}
	return out, nil
}

// putRecords writes decided records to the crawl's records bucket.
func (n *Node) putRecords(ctx context.Context, recs []*storage.URLRecord) error {
	futures := make([]jetstream.PubAckFuture, 0, len(recs))
	for _, r := range recs {
		b, err := encodeRecord(r)
		if errors.Is(err, errRecordTooBig) {
			n.log.Warn("cluster: a record too big for the records bucket; its links are left out there", "url", r.URL, "links", len(r.Links))
			c := *r
			c.LinksDropped, c.Links = c.LinksDropped+len(c.Links), []string{}
			b, err = encodeRecord(&c)
		}
		if err != nil {
			return fmt.Errorf("record %s: %w", r.URL, err)
		}
		f, err := n.js.PublishAsync("$KV."+RecordsBucket(n.cfg.Name)+"."+urlKey(r.URL), b)
		if err != nil {
			return fmt.Errorf("record %s: %w", r.URL, err)
		}
		futures = append(futures, f)
	}
	if err := wait(ctx, futures); err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	return nil
}

// putRobots writes robots.txt files to the robots bucket.
func (n *Node) putRobots(ctx context.Context, entries []*robotsEntry) error {
	futures := make([]jetstream.PubAckFuture, 0, len(entries))
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("robots.txt of %s: %w", e.Origin, err)
		}
		key := hostKey(Shard(urlnorm.Authority(e.Origin), n.cfg.Shards), e.Origin)
		f, err := n.js.PublishAsync("$KV."+RobotsBucket(n.cfg.Name)+"."+key, b)
		if err != nil {
			return fmt.Errorf("robots.txt of %s: %w", e.Origin, err)
		}
		futures = append(futures, f)
	}
	if err := wait(ctx, futures); err != nil {
		return fmt.Errorf("write robots.txt files: %w", err)
	}
	return nil
}

// shardRobots reads the robots bucket's entries for a shard.
func (n *Node) shardRobots(ctx context.Context, shard int) (map[string]*storage.RobotsRecord, error) {
	out := map[string]*storage.RobotsRecord{}
	err := readShard(ctx, n.robots, shard, func(b []byte) {
		var e robotsEntry
		if json.Unmarshal(b, &e) == nil && e.Origin != "" && e.Record != nil {
			out[e.Origin] = e.Record
		}
	})
	return out, err
}

// readShard calls fn with the value of every key of a shard in kv.
func readShard(ctx context.Context, kv jetstream.KeyValue, shard int, fn func([]byte)) error {
	w, err := kv.Watch(ctx, fmt.Sprintf("%d.*", shard), jetstream.IgnoreDeletes())
	if err != nil {
		return fmt.Errorf("read %s for shard %d: %w", kv.Bucket(), shard, err)
	}
	return drainWatch(ctx, w, func(e jetstream.KeyValueEntry) error { fn(e.Value()); return nil })
}

// drainWatch calls fn with each current entry a watcher delivers, until
// the watcher's end-of-initial-values marker, then stops it.
func drainWatch(ctx context.Context, w jetstream.KeyWatcher, fn func(jetstream.KeyValueEntry) error) error {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-w.Updates():
			if e == nil {
				return nil
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
}

// eventLoop starts and stops shard work as the Manager reports ownership.
func (n *Node) eventLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.evWake:
		}
		n.mu.Lock()
		evs := n.events
		n.events = nil
		n.mu.Unlock()
		for _, e := range evs {
			if e.Kind == Acquired {
				n.startShard(ctx, e)
			}
		}
	}
}

// startShard begins serving a shard just acquired.
func (n *Node) startShard(ctx context.Context, e Event) {
	sctx, cancel := context.WithCancel(ctx)
	r := &shardRun{n: n, shard: e.Shard, token: e.Token, acquired: n.now(), cancel: cancel, done: make(chan struct{}), timed: map[string]bool{}}
	// Checked and recorded under n.mu: the Manager forgets a lease before
	// it reports Lost, and onEvent takes n.mu, so a Lost either comes
	// before the check (no start) or finds r (and stops it).
	n.mu.Lock()
	if !n.mgr.Holds(e.Shard, e.Token) {
		n.mu.Unlock()
		cancel()
		return // lost again already
	}
	if old := n.shards[e.Shard]; old != nil {
		old.cancel()
	}
	n.shards[e.Shard] = r
	n.mu.Unlock()
	go func() {
		defer close(r.done)
		r.serve(sctx)
	}()
}

// serve takes over a shard's messages, catches up with all of them,
// lets the engine serve the shard's hosts (after the previous owner's
// last requests), and then admits what arrives until the shard is lost.
func (r *shardRun) serve(ctx context.Context) {
	n, shard := r.n, r.shard
	var cons jetstream.Consumer
	for ctx.Err() == nil {
		var err error
		if cons, err = n.hand.takeOver(ctx, shard); err == nil {
			break
		}
		if ctx.Err() != nil {
			return // lost again meanwhile
		}
		n.log.Warn("cluster: take over shard", "shard", shard, "err", err)
		pause(ctx, time.Second)
	}
	for ctx.Err() == nil {
		got, err := r.admitBatch(ctx, cons)
		if err != nil {
			if ctx.Err() == nil {
				n.log.Warn("cluster: admit", "shard", shard, "err", err)
				pause(ctx, 250*time.Millisecond)
			}
			continue
		}
		if !r.ready.Load() && got < handoffBatch && n.caughtUp(ctx, cons) {
			if err := r.open(ctx); err != nil {
				if ctx.Err() == nil {
					n.log.Warn("cluster: open shard", "shard", shard, "err", err)
				}
				continue
			}
		}
	}
}

// handoffBatch is how many messages one admission takes.
const handoffBatch = 256

// fetchSome returns the shard's messages available now, up to
// handoffBatch, or, if there are none, waits up to half a second for one:
// a URL is admitted as soon as it arrives (a pull for a full batch would
// wait its whole expiry whenever fewer are waiting).
func fetchSome(ctx context.Context, cons jetstream.Consumer) ([]jetstream.Msg, error) {
	collect := func(b jetstream.MessageBatch) ([]jetstream.Msg, error) {
		var msgs []jetstream.Msg
		for m := range b.Messages() {
			msgs = append(msgs, m)
		}
		if err := b.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) &&
			!errors.Is(err, jetstream.ErrNoMessages) {
			return msgs, err // not acknowledged: delivered again
		}
		return msgs, nil
	}
	b, err := cons.FetchNoWait(handoffBatch)
	if err != nil {
		return nil, err
	}
	if msgs, err := collect(b); err != nil || len(msgs) > 0 {
		return msgs, err
	}
	fctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if b, err = cons.Fetch(1, jetstream.FetchContext(fctx)); err != nil {
		return nil, err
	}
	return collect(b)
}

// caughtUp reports whether every message of the shard has been delivered
// to this owner.
func (n *Node) caughtUp(ctx context.Context, cons jetstream.Consumer) bool {
	info, err := cons.Info(ctx)
	return err == nil && info.NumPending == 0
}

// open lets the engine serve a caught-up shard: each known host of the
// shard first waits out the previous owner's last request, by the delay
// that owner had learnt for it, and continues from what it learnt (its
// last answer's status included).
func (r *shardRun) open(ctx context.Context) error {
	n, shard := r.n, r.shard
	timings, err := n.shardTimings(ctx, shard)
	if err != nil {
		return err
	}
	until := make(map[string]time.Time, len(timings))
	learnt := map[string]storage.HostRecord{}
	for _, t := range timings {
		until[t.Host] = t.earliest(r.acquired, n.opts.DefaultDelay, n.opts.Adaptive)
		r.timed[t.Host] = true
		if t.learnt() {
			learnt[t.Host] = t.record()
		}
	}
	if len(learnt) > 0 {
		if err := n.crawl.Learn(ctx, learnt); err != nil {
			return err
		}
	}
	if err := n.crawl.HoldHosts(ctx, until); err != nil {
		return err
	}
	robots, err := n.shardRobots(ctx, shard)
	if err != nil {
		return err
	}
	if err := n.crawl.ImportRobots(ctx, robots); err != nil {
		return err
	}
	n.mu.Lock()
	owned := n.shards[shard] == r
	n.mu.Unlock()
	if !owned {
		return nil
	}
	r.ready.Store(true)
	n.log.Info("cluster: serving shard", "shard", shard, "hosts_timed", len(until), "robots", len(robots), "held", n.heldCount())
	return n.crawl.Serve(ctx, func(string) time.Duration { return n.opts.DefaultDelay })
}

func (n *Node) heldCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.held)
}

// shardTimings reads the hosts bucket's entries for a shard.
func (n *Node) shardTimings(ctx context.Context, shard int) ([]hostTiming, error) {
	var out []hostTiming
	err := readShard(ctx, n.hosts, shard, func(b []byte) {
		var t hostTiming
		if json.Unmarshal(b, &t) == nil && t.Host != "" {
			out = append(out, t)
		}
	})
	return out, err
}

// arrival is a message of a shard, with the URL it hands over.
type arrival struct {
	msg  jetstream.Msg
	seq  uint64 // stream sequence: a redelivery has the same
	cand frontier.Candidate
}

// admitBatch fetches and admits up to handoffBatch messages of a shard. A
// URL decided already is acknowledged; a new one is admitted to the engine
// and its message held until the URL is decided.
func (r *shardRun) admitBatch(ctx context.Context, cons jetstream.Consumer) (int, error) {
	n, shard := r.n, r.shard
	msgs, err := fetchSome(ctx, cons)
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	n.received.Add(int64(len(msgs)))
	undecided, err := n.undecided(ctx, n.arrivals(msgs, shard))
	if err != nil {
		return n.nakUnheld(msgs, err)
	}
	if len(undecided) == 0 {
		return len(msgs), nil
	}
	if err := r.admitUndecided(ctx, undecided); err != nil {
		return n.nakUnheld(msgs, err)
	}
	return len(msgs), nil
}

// arrivals sorts a batch's messages: one that is no URL of the shard is
// dropped; one for a URL this node holds already, or twice in the batch,
// is acknowledged (a redelivery of the held message takes its place);
// the rest are new arrivals.
func (n *Node) arrivals(msgs []jetstream.Msg, shard int) []arrival {
	var fresh []arrival
	inBatch := map[string]bool{}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range msgs {
		w, err := decodeWire(m.Data())
		if err == nil && Shard(urlnorm.Authority(w.URL), n.cfg.Shards) != shard {
			err = fmt.Errorf("%s belongs to shard %d", w.URL, Shard(urlnorm.Authority(w.URL), n.cfg.Shards))
		}
		if err != nil {
			n.log.Warn("cluster: dropping a message that is no URL of this shard", "shard", shard, "err", err)
			_ = m.Term()
			continue
		}
		var seq uint64
		if md, err := m.Metadata(); err == nil {
			seq = md.Sequence.Stream
		}
		if h, ok := n.held[w.URL]; ok {
			if h.seq == seq {
				h.reply = m.Reply() // delivered again (its ack wait passed): ack this delivery
				n.held[w.URL] = h
			} else {
				n.dups.Add(1)
				_ = m.Ack() // the URL is held already, under another message
			}
			continue
		}
		if inBatch[w.URL] {
			n.dups.Add(1)
			_ = m.Ack() // twice in this batch
			continue
		}
		inBatch[w.URL] = true
		fresh = append(fresh, arrival{msg: m, seq: seq, cand: w.candidate()})
	}
	return fresh
}

// undecided returns the arrivals whose URLs are decided nowhere in the
// crawl; those decided already are acknowledged.
func (n *Node) undecided(ctx context.Context, fresh []arrival) ([]arrival, error) {
	var out []arrival
	for _, a := range fresh {
		_, err := n.records.Get(ctx, urlKey(a.cand.URL))
		switch {
		case err == nil:
			_ = a.msg.Ack()
		case isNotFound(err):
			out = append(out, a)
		default:
			return nil, fmt.Errorf("look up %s: %w", a.cand.URL, err)
		}
	}
	return out, nil
}

// admitUndecided admits undecided URLs of a shard to the engine. A host
// met for the first time since the take-over waits from the take-over
// like the others (the previous owner may have requested it just before),
// and is held before its URLs are queued; each URL's message is held from
// before the engine queues it (the engine fetches only held URLs). A URL
// the engine decided under an earlier ownership, never written down, is
// written now with what it found.
func (r *shardRun) admitUndecided(ctx context.Context, undecided []arrival) error {
	n, shard := r.n, r.shard
	until := map[string]time.Time{}
	for _, a := range undecided {
		if host := urlnorm.Authority(a.cand.URL); !r.timed[host] {
			r.timed[host] = true
			until[host] = hostTiming{}.earliest(r.acquired, n.opts.DefaultDelay, n.opts.Adaptive)
		}
	}
	if len(until) > 0 {
		if err := n.crawl.HoldHosts(ctx, until); err != nil {
			return err
		}
	}
	cands := make([]frontier.Candidate, len(undecided))
	n.mu.Lock()
	if n.shards[shard] != r {
		n.mu.Unlock()
		return nil // lost meanwhile: the next owner gets them
	}
	for i, a := range undecided {
		cands[i] = a.cand
		n.held[a.cand.URL] = heldMsg{reply: a.msg.Reply(), shard: shard, token: r.token, seq: a.seq}
	}
	n.mu.Unlock()
	adm, err := n.crawl.Admit(ctx, cands)
	if err != nil {
		n.mu.Lock()
		for _, c := range cands {
			delete(n.held, c.URL)
		}
		n.mu.Unlock()
		return err
	}
	var decided []*storage.URLRecord
	var again []frontier.Candidate
	var acks []jetstream.Msg
	n.mu.Lock()
	for i, a := range adm {
		m := undecided[i]
		if !a.Queued {
			delete(n.held, a.URL)
		}
		switch {
		case a.Queued:
		case a.OutOfScope:
			acks = append(acks, m.msg)
		case a.Record != nil:
			decided = append(decided, a.Record)
			again = append(again, foundBy(a.Record)...)
			acks = append(acks, m.msg)
		}
	}
	n.mu.Unlock()
	if err := n.publish(ctx, again); err != nil {
		return err
	}
	if err := n.putRecords(ctx, decided); err != nil {
		return err
	}
	for _, m := range acks {
		_ = m.Ack()
	}
	return nil
}

// nakUnheld gives back, after a failed admission, the batch's messages
// this node neither acknowledged nor holds, so that they come again now
// rather than after their hour-long ack wait.
func (n *Node) nakUnheld(msgs []jetstream.Msg, err error) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range msgs {
		if w, derr := decodeWire(m.Data()); derr == nil {
			if h, ok := n.held[w.URL]; ok && h.reply == m.Reply() {
				continue
			}
		}
		_ = m.Nak() // an acknowledged one ignores it
	}
	return len(msgs), err
}

// foundBy lists what a decided page found, from its record: its links.
func foundBy(r *storage.URLRecord) []frontier.Candidate {
	if r.State != storage.Fetched || r.NoFollow {
		return nil
	}
	out := make([]frontier.Candidate, 0, len(r.Links))
	for _, l := range r.Links {
		if u, err := urlnorm.Normalise(l); err == nil {
			out = append(out, frontier.Candidate{URL: u, Depth: r.Depth + 1, Via: "link", Parent: r.URL})
		}
	}
	return out
}

// syncHosts writes the timing of the hosts this node serves to the hosts
// bucket, every HostSync, for the next owner of their shards.
func (n *Node) syncHosts(ctx context.Context) {
	t := time.NewTicker(n.opts.HostSync)
	defer t.Stop()
	last := map[string]hostTiming{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n.writeTimings(ctx, n.Serves, last, time.Time{})
	}
}

// writeTimings writes the timing of the hosts that match, skipping those
// unchanged since last (when given), each held at least until hold.
func (n *Node) writeTimings(ctx context.Context, match func(string) bool, last map[string]hostTiming, hold time.Time) {
	recs, err := n.crawl.HostRecords(ctx, match)
	if errors.Is(err, crawler.ErrNotRunning) {
		recs, err = n.storedHosts(match)
	}
	if err != nil {
		n.log.Warn("cluster: read host timing", "err", err)
		return
	}
	var futures []jetstream.PubAckFuture
	for host, rec := range recs {
		t := timingOf(host, rec)
		if hold.After(t.HoldUntil) {
			t.HoldUntil = hold
		}
		if last != nil && last[host] == t {
			continue
		}
		b, _ := json.Marshal(t)
		f, err := n.js.PublishAsync("$KV."+HostsBucket(n.cfg.Name)+"."+hostKey(Shard(host, n.cfg.Shards), host), b)
		if err != nil {
			n.log.Warn("cluster: write host timing", "host", host, "err", err)
			return
		}
		futures = append(futures, f)
		if last != nil {
			last[host] = t
		}
	}
	if err := wait(ctx, futures); err != nil {
		n.log.Warn("cluster: write host timing", "err", err)
	}
}

// storedHosts reads host timing from the state file (the engine stopped).
func (n *Node) storedHosts(match func(string) bool) (map[string]storage.HostRecord, error) {
	out := map[string]storage.HostRecord{}
	err := n.db.View(func(tx *storage.Tx) error {
		return tx.ForEachHost(func(host string, r storage.HostRecord) error {
			if match(host) {
				out[host] = r
			}
			return nil
		})
	})
	return out, err
}

// beforeRelease runs before this node deletes a shard's lease on purpose
// (Serves is false for it already): the shard's requests in flight come
// back and are recorded, their outcomes handed over (records written,
// messages acknowledged), and the hosts' timing written for the next
// owner, all within the lease's validity. Whatever is not done by then
// the next owner does again.
func (n *Node) beforeRelease(ctx context.Context, shard int) {
	// The Manager renews no lease meanwhile: keep it within a quarter TTL
	// (renewals are due every quarter, and valid for three).
	ctx, cancel := context.WithTimeout(ctx, n.cfg.LeaseTTL/4)
	defer cancel()
	match := func(host string) bool { return Shard(host, n.cfg.Shards) == shard }
	var hold time.Time
	// Requests still running three quarters of the way through are cut
	// short (their URLs stay queued here, and come to the next owner with
	// their messages).
	cut := time.AfterFunc(n.cfg.LeaseTTL*3/16, func() { n.crawl.CancelHosts(match) })
	defer cut.Stop()
	for {
		qctx, qcancel := context.WithTimeout(ctx, time.Second)
		busy, err := n.crawl.InFlight(qctx, match)
		qcancel()
		if err == nil && busy == 0 {
			break
		}
		if err != nil && ctx.Err() == nil {
			pause(ctx, 10*time.Millisecond) // the engine is busy (a commit): ask again
			continue
		}
		if ctx.Err() != nil {
			// They may run up to the request timeout: the next owner
			// waits that long (and the hosts' intervals) before it
			// requests these hosts, and fetches these URLs again.
			hold = n.now().Add(n.opts.RequestTimeout)
			n.log.Warn("cluster: handing a shard over with requests still in flight; its next owner holds the shard's hosts until they must be over",
				"shard", shard, "in_flight", busy, "hold_until", hold)
			break
		}
		pause(ctx, 10*time.Millisecond)
	}
	for ctx.Err() == nil {
		n.mu.Lock()
		idle := len(n.jobs) == 0 && !n.busy
		n.mu.Unlock()
		if idle {
			break
		}
		pause(ctx, 10*time.Millisecond)
	}
	// Whatever the wait took, the timing is written: without it the next
	// owner knows only when it took the shard.
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), n.cfg.LeaseTTL/8)
	n.writeTimings(wctx, match, nil, hold)
	wcancel()
	n.mu.Lock()
	n.forget(shard)
	n.mu.Unlock()
}

// waitDrained returns nil once the whole crawl has nothing undecided on
// DrainChecks checks in a row and this node has nothing left to hand
// over.
func (n *Node) waitDrained(ctx context.Context) error {
	t := time.NewTicker(n.opts.DrainEvery)
	defer t.Stop()
	streak := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		n.mu.Lock()
		idle := len(n.jobs) == 0 && !n.busy && len(n.held) == 0
		n.mu.Unlock()
		left, err := n.hand.Pending(ctx)
		if err != nil || !idle || left > 0 {
			streak = 0
			continue
		}
		if streak++; streak >= n.opts.DrainChecks {
			n.log.Info("cluster: crawl drained")
			n.mgr.drained.Store(true)
			return nil
		}
	}
}

// WaitOthers waits, within ctx, until this node is the crawl's last
// member: a node that runs the NATS server (cluster.embed) keeps it up
// until the others have handed over and left.
func (n *Node) WaitOthers(ctx context.Context) {
	for ctx.Err() == nil {
		// A snapshot of the members bucket of its own: countMembers
		// belongs to the Manager's goroutine.
		if members, err := snapshot(ctx, n.mgr.members); err == nil && len(members) <= 1 {
			return
		}
		pause(ctx, 100*time.Millisecond)
	}
}

// Close hands this node's shards over (their hosts' timing written, their
// leases deleted) and disconnects. Stop the engine first: its last
// outcomes are then handed over too, within ctx. A node never attached to
// an engine (its start failed) has none to hand over: they are in its
// state file, for its next start.
func (n *Node) Close(ctx context.Context) {
	deadline := n.now().Add(5 * time.Second)
	for n.db != nil && n.now().Before(deadline) && ctx.Err() == nil {
		n.mu.Lock()
		idle := len(n.jobs) == 0 && !n.busy
		jobs := n.jobs
		n.jobs = nil
		n.mu.Unlock()
		if idle {
			break
		}
		if len(jobs) > 0 {
			if err := n.finish(ctx, jobs); err != nil {
				n.log.Warn("cluster: hand over last results", "err", err)
				break
			}
		} else {
			pause(ctx, 20*time.Millisecond)
		}
	}
	if n.mgrStop != nil {
		n.mgrStop()
		<-n.mgrDone
	}
	_ = n.nc.Drain()
}

// Owned lists the shards this node serves (for status).
func (n *Node) Owned() map[int]uint64 { return maps.Clone(n.mgr.Owned()) }

// Counts reports the node's hand-over counters: URLs published, messages
// received, duplicates dropped, URLs held undecided.
func (n *Node) Counts() (sent, received, dups int64, held int) {
	return n.sent.Load(), n.received.Load(), n.dups.Load(), n.heldCount()
}
