package frontier

import (
	"errors"
	"time"

	"golang.org/x/time/rate"

	"github.com/politecrawl/politecrawl/storage"
)

// Host is everything the crawl keeps in memory about one authority
// (host[:port]), in one place: its queue (counts and position), its
// politeness slot (spacing, hold, the request in flight, its IP group) and
// its backoff. The Scheduler owns every Host and is the only code that
// changes one; the crawler reads them and tells the Scheduler what
// happened. What must survive a restart is Record's projection of it,
// written with each result, and RestoreHost reads it back.
//
// The queue itself lives in the state file (storage's per-host FIFO): a
// Host holds its counts, the position of the last URL handed out, and a
// short head of the URLs after it, so a host's next URL is usually known
// without a read, including URLs queued in a batch not committed yet.
type Host struct {
	name string

	// Queue.
	queued  int    // URLs in its queue, as recorded (committed or not)
	taken   int    // of those, URLs handed out and not recorded yet
	cursor  uint64 // queue position of the last URL taken or settled: the next one comes after it
	waitGen uint64 // its next URLs become visible once this batch commits
	// ahead is the start of its queue after cursor, as recorded: read
	// from the state file, or kept as URLs are queued. While it holds
	// all of them (queued-taken), URLs queued are appended, so they can
	// be handed out before their batch commits.
	ahead   []QueueEntry
	other   bool // work besides the queue (robots.txt hops, sitemaps)
	paused  bool // out of the schedule until the next SetWork
	stopped bool // paused by the operator until resumed (PauseHost); survives a restart

	// Backoff.
	failures  int    // consecutive 5xx/429/timeouts
	lastError string // why it last backed off

	// For status only.
	lastStatus int // HTTP status of its last answer to a page request

	// Politeness slot.
	lim        *rate.Limiter // spaces its requests by spacing
	interval   time.Duration // the floor: what robots.txt and the configuration ask
	floorWhy   string        // why the floor is what it is (a Why constant)
	spacing    time.Duration // the delay in force: the floor raised by the adaptive terms
	spacingWhy string
	ad         adaptive // what the adaptive delay keeps of it
	hold       time.Time
	holdWhy    string  // why it is held (WhyRetryAfter, WhyBackoff), "" otherwise
	addr       address // its looked-up address (see address.go)
	inFlight   bool
	res        *rate.Reservation // the token taken by Next, returned by Cancel
	last       time.Time         // start of the last request
	prevLast   time.Time         // last before the current claim, for Cancel
	claimedAt  time.Time         // the current claim's instant (last, until a start moves it)
	openAt     time.Time         // when its slot opens; heap key
	wantSince  time.Time         // when it last became ready to go (for wait accounting)
	index      int               // in ready, -1 if absent

	group         *ipGroup          // the IP its requests connect to; nil until known
	flightGroup   *ipGroup          // the group the request in flight counts against
	gres          *rate.Reservation // the group's token taken by Next
	unsent        bool              // claimed in a spaced group; when it goes out is not known yet (see Sent)
	prevGroupLast time.Time
	parked        bool // held back by its group's in-flight cap, not in ready
	keepSince     bool // re-entering ready after parking: keeps its place in line
}

// QueueEntry is one URL of a host's queue and its position.
type QueueEntry struct {
	URL string
	Seq uint64
}

// AheadMax bounds a host's in-memory queue head: memory per host, not per
// queued URL.
const AheadMax = 32

// readAheadMax is how many queue entries LoadAhead reads at once.
const readAheadMax = 8

// Name is the host's authority.
func (h *Host) Name() string { return h.name }

// Queued is how many URLs its queue holds, as recorded.
func (h *Host) Queued() int { return h.queued }

// Taken is how many of them are handed out and not recorded yet.
func (h *Host) Taken() int { return h.taken }

// Cursor is the queue position of the last URL taken or settled.
func (h *Host) Cursor() uint64 { return h.cursor }

// Failures is its count of consecutive failed requests.
func (h *Host) Failures() int { return h.failures }

// Head returns the next URL of its queue after the cursor, if it is in
// memory (see LoadAhead).
func (h *Host) Head() (QueueEntry, bool) {
	if len(h.ahead) == 0 {
		return QueueEntry{}, false
	}
	return h.ahead[0], true
}

// HasQueued reports whether URLs of its queue wait to be handed out.
func (h *Host) HasQueued() bool { return h.queued > h.taken }

// hasWork reports whether the host has something it can start now, when
// doneGen is the last batch committed: not while its only queued URLs are
// in a batch still being committed (they cannot be read yet).
func (h *Host) hasWork(doneGen uint64) bool {
	if h.paused || h.stopped {
		return false
	}
	return h.other || h.queued > h.taken && (len(h.ahead) > 0 || h.waitGen <= doneGen)
}

// enqueued keeps ahead whole when a URL joins the queue (before counting
// it in queued).
func (h *Host) enqueued(url string, seq uint64) {
	if seq != 0 && len(h.ahead) < AheadMax && len(h.ahead) == h.queued-h.taken {
		h.ahead = append(h.ahead, QueueEntry{url, seq})
	}
}

// advance moves the cursor to seq: every queue entry up to it is taken or
// settled.
func (h *Host) advance(seq uint64) {
	h.cursor = seq
	i := 0
	for i < len(h.ahead) && h.ahead[i].Seq <= seq {
		i++
	}
	h.ahead = h.ahead[i:]
	if len(h.ahead) == 0 {
		h.ahead = nil
	}
}

// Enqueued counts a URL just queued for host at position seq, in a batch
// that may not be committed yet.
func (s *Scheduler) Enqueued(host, url string, seq uint64, now time.Time) {
	h := s.slot(host)
	h.enqueued(url, seq)
	h.queued++
	s.update(h, now)
}

// Requeued counts a URL moved to the back of host's queue (a retry): the
// count is unchanged, its new position seq.
func (s *Scheduler) Requeued(host, url string, seq uint64) {
	s.slot(host).enqueued(url, seq)
}

// Take hands out the queue entry at seq (the head): it stays counted in
// queued until its result is recorded (Returned and Removed).
func (s *Scheduler) Take(host string, seq uint64) {
	h := s.slot(host)
	h.taken++
	h.advance(seq)
}

// Returned ends a taken URL's time out: its result is recorded.
func (s *Scheduler) Returned(host string, now time.Time) {
	h := s.slot(host)
	h.taken = max(h.taken-1, 0)
	s.update(h, now)
}

// Settled moves the cursor past seq, a URL settled without a request.
func (s *Scheduler) Settled(host string, seq uint64, now time.Time) {
	h := s.slot(host)
	h.advance(seq)
	s.update(h, now)
}

// Removed counts n URLs taken off host's queue in the batch being built.
func (s *Scheduler) Removed(host string, n int) {
	s.slot(host).queued -= n
}

// Dropped counts n URLs taken off host's queue out of order (its origin
// gave up): its in-memory head is stale, so its next URLs are read again
// once batch gen, which removes them, has committed (gen 0: at once).
func (s *Scheduler) Dropped(host string, n int, gen uint64, now time.Time) {
	h := s.slot(host)
	h.queued -= n
	h.ahead = nil
	if gen > 0 {
		s.waitFor(h, gen)
	}
	s.update(h, now)
}

// WaitFor says that host's next URLs are in batch gen, being committed:
// it has no work it can start until Committed(gen).
func (s *Scheduler) WaitFor(host string, gen uint64, now time.Time) {
	h := s.slot(host)
	s.waitFor(h, gen)
	s.update(h, now)
}

func (s *Scheduler) waitFor(h *Host, gen uint64) {
	h.waitGen = gen
	s.awaiting = append(s.awaiting, h)
}

// Committed says every batch up to gen is in the state file: hosts waiting
// for them get their turn.
func (s *Scheduler) Committed(gen uint64, now time.Time) {
	s.doneGen = gen
	waiting := s.awaiting
	s.awaiting = nil
	for _, h := range waiting {
		if h.waitGen > gen {
			s.awaiting = append(s.awaiting, h)
			continue
		}
		s.update(h, now)
	}
}

// Unreadable reports whether host's next URLs wait for a batch to commit.
func (s *Scheduler) Unreadable(host string) bool {
	h := s.hosts[host]
	return h != nil && h.waitGen > s.doneGen
}

// Recount sets host's queued count to what was handed out, when its queue
// turned out shorter than counted; it reports whether it changed.
func (s *Scheduler) Recount(host string, now time.Time) bool {
	h := s.slot(host)
	if h.queued <= h.taken {
		return false
	}
	h.queued = h.taken
	s.update(h, now)
	return true
}

// LoadAhead reads the start of host's queue after its cursor from tx when
// none is in memory, and returns the head.
func (s *Scheduler) LoadAhead(tx *storage.Tx, host string) (QueueEntry, bool) {
	h := s.slot(host)
	if len(h.ahead) == 0 {
		n := 0
		tx.ForEachQueued(host, func(seq uint64, url string) error {
			if seq <= h.cursor {
				return nil
			}
			h.ahead = append(h.ahead, QueueEntry{url, seq})
			if n++; n >= readAheadMax {
				return errFound
			}
			return nil
		})
	}
	return h.Head()
}

// HeadAfter returns the first entry of host's queue in tx after its
// cursor, reading the state file (positions only grow: a URL queued again
// goes to the tail, so everything at or before the cursor was taken or
// settled already).
func HeadAfter(tx *storage.Tx, host string, cursor uint64) (e QueueEntry, ok bool) {
	tx.ForEachQueued(host, func(seq uint64, url string) error {
		if seq <= cursor {
			return nil
		}
		e, ok = QueueEntry{url, seq}, true
		return errFound
	})
	return e, ok
}

// errFound ends a queue walk.
var errFound = errors.New("found")

// Backoff is how a host backs off after failed requests: Base doubled per
// consecutive failure up to Max, each with Jitter applied, and at least
// the server's Retry-After, itself capped at MaxHold.
type Backoff struct {
	Base, Max, MaxHold time.Duration
	// Jitter spreads a backoff (nil: none), so hosts that failed together
	// do not come back together.
	Jitter func(time.Duration) time.Duration
}

// SetBackoff sets the backoff policy for failures from now on.
func (s *Scheduler) SetBackoff(b Backoff) { s.backoff = b }

// Fail records a failed request to host (5xx, 429, timeout, network
// error) and holds the host: exponential in its consecutive failures, and
// at least retryAfter. It returns until when.
func (s *Scheduler) Fail(host, why string, retryAfter time.Duration, now time.Time) time.Time {
	h := s.slot(host)
	h.failures++
	h.lastError = why
	b := s.backoff
	d := min(b.Base<<min(h.failures-1, 20), b.Max)
	if b.Jitter != nil {
		d = b.Jitter(d)
	}
	ra := min(retryAfter, b.MaxHold)
	until := now.Add(max(d, ra))
	h.ad.failed(h.spacing, s.adaptive)
	s.respace(h, now)
	if until.After(h.hold) {
		h.holdWhy = WhyBackoff
		if ra > d {
			h.holdWhy = WhyRetryAfter
		}
	}
	s.Hold(host, until, now)
	return until
}

// Recovered ends host's run of failures (a request succeeded), and halves
// what the error backoff adds to its delay (see Adaptive).
func (s *Scheduler) Recovered(host string, now time.Time) {
	h := s.slot(host)
	h.failures, h.lastError, h.holdWhy = 0, "", ""
	base, _ := Spacing(h.interval, h.floorWhy, adaptive{ttfb: h.ad.ttfb}, s.adaptive)
	h.ad.succeeded(base, s.adaptive)
	s.respace(h, now)
}

// Record is the part of host's state that must survive a restart.
func (s *Scheduler) Record(host string) storage.HostRecord {
	h := s.slot(host)
	r := storage.HostRecord{
		LastRequest: h.last,
		Interval:    h.interval.Seconds(),
		HoldUntil:   h.hold,
		Failures:    h.failures,
		LastError:   h.lastError,
		Paused:      h.stopped,
		LastStatus:  h.lastStatus,
		TTFBMs:      float64(h.ad.ttfb) / float64(time.Millisecond),
		ErrorDelayS: h.ad.errDelay.Seconds(),
	}
	if h.group != nil {
		r.IP = h.group.ip
	}
	return r
}

// RestoreHost brings back a host from its record and its queued count in
// the state file. After a crash (crashed) its last request is taken to be
// at now: one may have left just before the crash.
func (s *Scheduler) RestoreHost(host string, r storage.HostRecord, queued int, crashed bool, now time.Time) {
	last := r.LastRequest
	if crashed {
		last = now
	}
	// The recorded interval, but never less than the one the host has
	// already (the default delay, or its robots.txt's): a host whose
	// record was not committed before a crash, or was lost to damage, has
	// none, and was spaced by nothing until its robots.txt was read again.
	iv := max(time.Duration(r.Interval*float64(time.Second)), s.Interval(host))
	h := s.slot(host)
	h.ad = learnt(r)
	h.lastStatus = r.LastStatus
	s.Restore(host, last, iv)
	// The first request waits the delay that was in force, the adaptive
	// terms included, as every request before the stop did.
	iv = max(iv, h.spacing)
	h.failures, h.lastError, h.stopped = r.Failures, r.LastError, r.Paused
	h.queued = queued
	s.Hold(host, r.HoldUntil, now)
	if !last.IsZero() {
		s.keepSpacing(h, last.Add(iv), now)
	}
	s.SetGroup(host, r.IP, now)
	// The group's spacing counts from the latest of its hosts' last
	// requests before the stop, as each host's own does.
	s.countIn(h, now)
	s.update(h, now)
}

// Learn takes what another process's adaptive delay learnt of host's
// server (r's time to first byte and error delay: the record a cluster
// shard's previous owner wrote) in place of what this one knows, so the
// host is spaced from its next request on as it was there. A record
// with neither leaves the host as it is: nodes from before these were
// kept wrote none, and a host spaced by its floor alone writes none
// either; what this process learnt of it, if anything, is older but
// errs on the side of a longer delay, and successes bring it down.
// r's LastStatus, when it has one, is the host's last answer's status
// from then on (for status); none leaves the host's as it is.
func (s *Scheduler) Learn(host string, r storage.HostRecord, now time.Time) {
	h := s.slot(host)
	if r.LastStatus != 0 {
		h.lastStatus = r.LastStatus
	}
	a := learnt(r)
	if a == (adaptive{}) {
		return
	}
	h.ad = a
	s.respace(h, now)
}

// durationOf reads a duration saved as a number of units, refusing what
// no duration is (zero, negative, not a number) and capping one too long
// at storedMax. Capped, not refused: politeness.max_delay has no upper
// bound, so an error delay of a day is a real one, and reading it as none
// would have spaced the host by its floor (the policy's Max caps what is
// in force: see Spacing).
func durationOf(v float64, unit time.Duration) time.Duration {
	if !(v > 0) {
		return 0
	}
	if v >= float64(storedMax/unit) {
		return storedMax
	}
	return time.Duration(v * float64(unit))
}

// storedMax is the longest learnt duration read back from a host record:
// a year, far above any delay a crawl keeps, far below time.Duration's
// limit.
const storedMax = 365 * 24 * time.Hour

// keepSpacing holds h until until: its last request before a restart plus
// the interval it was spaced by then. A delay lowered across the restart
// (a hosts: min_delay, a robots.txt applied again, see SetDelays) counts
// from the second request on: the site never sees the first one sooner
// after the last than it was promised before the stop.
func (s *Scheduler) keepSpacing(h *Host, until, now time.Time) {
	if until.After(now) && until.After(h.hold) {
		h.hold, h.holdWhy = until, WhyBeforeRestart
	}
}

// QueuedTotal is the number of queued URLs over all hosts.
func (s *Scheduler) QueuedTotal() int {
	n := 0
	for _, h := range s.hosts {
		n += max(h.queued, 0)
	}
	return n
}
