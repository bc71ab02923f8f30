package frontier

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// The model test runs sequences of the Frontier's verbs (admit, claim,
// finish, retry, settle, requeue, pause and wake, time passing, a crash and
// restart from the state file) against a plain in-memory model of the same
// rules, and after every step checks what a site operator and a user rely
// on:
//   - a host's count is its queue, and its queue is the model's, in order;
//   - at most one claim per host, and at most modelIPMax per known IP;
//   - no claim before the host's last start plus its interval, nor before
//     its backoff hold; no claim of a paused host; a claimed host has work;
//   - a host the model says may go is offered (no host starves);
//   - every admitted URL is either queued once or done, across restarts.

const (
	modelHosts    = 6
	modelIPMax    = 2
	modelIPDelay  = 300 * time.Millisecond
	modelInterval = time.Second
	modelBackoff  = 2 * time.Second
)

// modelIP is the IP a host's connections go to: three share one.
func modelIP(h int) string { return fmt.Sprintf("192.0.2.%d", min(h/3, 1)+1+h/5) }

type modelClaim struct {
	id      uint64
	url     string
	seq     uint64
	at      time.Time // when claimed
	grouped string    // the IP group it counts against, "" if none known at the claim
	notify  bool      // its group waits to hear when it is sent (Claim.NotifySent)
	sent    bool      // reported sent (Sent, Back or Release)
}

type modelHost struct {
	queue    []string // as in the state file, in order
	taken    string   // the URL of the open claim, "" if none
	claim    *modelClaim
	start    time.Time // last request start
	hold     time.Time
	saved    time.Time // the hold in its last saved record: a hold never saved (robots.txt unreachable) ends with the process
	failures int
	paused   bool
	ip       string // known once a request to it connected and was saved
}

type model struct {
	t     *testing.T
	db    *storage.DB
	f     *Frontier[string]
	now   time.Time
	hosts [modelHosts]*modelHost
	// groupLast is the last start of a request counted against each IP
	// group (claimed with its IP known), as reported sent.
	groupLast map[string]time.Time
	done      []string // URLs decided
	next      int      // URLs made so far
}

func newModel(t *testing.T) *model {
	db, err := storage.Open(filepath.Join(t.TempDir(), "m.db"), storage.Options{NoSync: true, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m := &model{t: t, db: db, now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), groupLast: map[string]time.Time{}}
	for i := range m.hosts {
		m.hosts[i] = &modelHost{}
	}
	m.f = m.open()
	return m
}

func (m *model) open() *Frontier[string] {
	hosts := make([]string, modelHosts)
	for i := range hosts {
		hosts[i] = hostName(i)
	}
	scope, err := hostScope(hosts)
	if err != nil {
		m.t.Fatal(err)
	}
	return New[string](Options{Scope: scope, Delays: DelayPolicy{Default: modelInterval, Max: time.Minute},
		IPMaxInFlight: modelIPMax, IPDelay: modelIPDelay, Backoff: Backoff{Base: modelBackoff, Max: 4 * modelBackoff, MaxHold: time.Minute},
		Now: func() time.Time { return m.now }})
}

func hostName(i int) string { return fmt.Sprintf("h%d.test", i) }

func (m *model) update(fn func(tx *storage.Tx) error) {
	m.t.Helper()
	if err := m.db.Update(fn); err != nil {
		m.t.Fatal(err)
	}
}

// step applies one operation, chosen by op and arg.
func (m *model) step(op, arg byte) string {
	h := int(arg) % modelHosts
	mh := m.hosts[h]
	host := hostName(h)
	switch op % 9 {
	case 0: // a new URL is discovered
		url := fmt.Sprintf("http://%s/p%d", host, m.next)
		m.next++
		m.update(func(tx *storage.Tx) error {
			a, err := m.f.Admit(tx, Candidate{URL: url, Via: "link"}, m.now)
			if err == nil && !a.Queued {
				m.t.Fatalf("%s not queued: %+v", url, a)
			}
			return err
		})
		mh.queue = append(mh.queue, url)
		return "admit " + url
	case 1, 2: // a slot is claimed
		return m.claim(arg)
	case 3: // a claimed page is fetched and recorded
		return m.finish(h, false)
	case 4: // a claimed page fails: back off, retry later
		return m.finish(h, true)
	case 5: // a paused host wakes (its robots.txt came through another host), or a request's write is reported
		if mh.paused {
			m.f.Wake(host, m.now)
			mh.paused = false
			return "wake " + host
		}
		c := mh.claim
		if c == nil || c.sent {
			return "sent: nothing to report"
		}
		at := m.sentAt(c)
		m.f.Sent(host, c.id, at, m.now)
		m.sent(mh, at)
		return "sent " + c.url
	case 6: // a decided page is queued again for its recheck
		if len(m.done) == 0 {
			return "requeue: nothing done"
		}
		i := int(arg) % len(m.done)
		url := m.done[i]
		m.done = slices.Delete(m.done, i, i+1)
		m.update(func(tx *storage.Tx) error { return m.f.Requeue(tx, url, m.now) })
		rh := m.hosts[int(url[len("http://h")]-'0')]
		rh.queue = append(rh.queue, url)
		return "requeue " + url
	case 7: // time passes
		d := time.Duration(arg) * 4 * time.Millisecond
		m.now = m.now.Add(d)
		return fmt.Sprint("wait ", d)
	default: // the process dies and starts again from the state file
		m.now = m.now.Add(time.Duration(arg) * time.Millisecond)
		m.f = m.open()
		if err := m.db.Update(func(tx *storage.Tx) error { return m.f.Restore(tx, true, m.now) }); err != nil {
			m.t.Fatal(err)
		}
		clear(m.groupLast) // a group's spacing starts again (each host waits its interval: see below)
		for i, mh := range m.hosts {
			mh.claim, mh.taken, mh.paused, mh.hold = nil, "", false, mh.saved
			if len(mh.queue) > 0 || m.saved(i) {
				mh.start = m.now // after a crash a request may have just left
			}
		}
		return "restart"
	}
}

// saved reports whether host i has a record in the state file.
func (m *model) saved(i int) bool {
	found := false
	m.db.View(func(tx *storage.Tx) error {
		return tx.ForEachHost(func(h string, _ storage.HostRecord) error {
			found = found || h == hostName(i)
			return nil
		})
	})
	return found
}

func (m *model) dropClaim(mh *modelHost) { mh.claim, mh.taken = nil, "" }

// eligible reports whether the model lets host i start a request now.
func (m *model) eligible(i int) bool {
	mh := m.hosts[i]
	if mh.claim != nil || mh.paused || len(mh.queue) == 0 || m.now.Before(mh.hold) {
		return false
	}
	if !mh.start.IsZero() && m.now.Before(mh.start.Add(modelInterval+Margin(modelInterval))) {
		return false
	}
	if mh.ip == "" {
		return true
	}
	if last, ok := m.groupLast[mh.ip]; ok && m.now.Before(last.Add(modelIPDelay+Margin(modelIPDelay))) {
		return false
	}
	return m.inGroup(mh.ip) < modelIPMax && !m.unsentIn(mh.ip)
}

// unsentIn reports whether a request counted against ip's group has not
// been reported sent: the group's other hosts wait for it.
func (m *model) unsentIn(ip string) bool {
	for _, o := range m.hosts {
		if o.claim != nil && o.claim.grouped == ip && o.claim.notify && !o.claim.sent {
			return true
		}
	}
	return false
}

// sentAt is when a claim's request is written: a while after the claim
// (connecting), never later than now.
func (m *model) sentAt(c *modelClaim) time.Time {
	at := c.at.Add(100 * time.Millisecond) // connecting took a while
	if at.After(m.now) {
		at = m.now
	}
	return at
}

// sent notes that mh's request went out at at.
func (m *model) sent(mh *modelHost, at time.Time) {
	c := mh.claim
	c.sent = true
	if at.After(mh.start) {
		mh.start = at
	}
	if c.grouped != "" && at.After(m.groupLast[c.grouped]) {
		m.groupLast[c.grouped] = at
	}
}

func (m *model) inGroup(ip string) int {
	n := 0
	for _, o := range m.hosts {
		if o.claim != nil && o.claim.grouped == ip {
			n++
		}
	}
	return n
}

// claim claims a slot and does with it what arg says: most often sends
// the head of the host's queue (Take), else settles it without a request
// (disallowed), pauses the host (its robots.txt comes through another
// host), or holds it (its robots.txt is unreachable).
func (m *model) claim(arg byte) string {
	anyEligible := false
	for i := range m.hosts {
		anyEligible = anyEligible || m.eligible(i)
	}
	c, _, ok := m.f.Claim(m.now)
	if !ok {
		if anyEligible {
			m.t.Fatalf("no claim at %v though a host may go", m.now)
		}
		return "claim: none open"
	}
	i := int(c.Host[1] - '0')
	mh := m.hosts[i]
	switch {
	case mh.claim != nil:
		m.t.Fatalf("%s claimed twice", c.Host)
	case mh.paused:
		m.t.Fatalf("paused %s claimed", c.Host)
	case m.now.Before(mh.hold):
		m.t.Fatalf("%s claimed at %v, held until %v", c.Host, m.now, mh.hold)
	case !mh.start.IsZero() && m.now.Sub(mh.start) < modelInterval:
		m.t.Fatalf("%s claimed %v after its last start: early", c.Host, m.now.Sub(mh.start))
	case mh.ip != "" && m.inGroup(mh.ip) >= modelIPMax:
		m.t.Fatalf("%s claimed with %d requests to %s already", c.Host, m.inGroup(mh.ip), mh.ip)
	case mh.ip != "" && m.unsentIn(mh.ip):
		m.t.Fatalf("%s claimed while a request to %s is not known to have left", c.Host, mh.ip)
	case mh.ip != "" && !m.groupLast[mh.ip].IsZero() && m.now.Sub(m.groupLast[mh.ip]) < modelIPDelay:
		m.t.Fatalf("%s claimed %v after the last request to %s: early for the IP", c.Host, m.now.Sub(m.groupLast[mh.ip]), mh.ip)
	}
	var head QueueEntry
	var found bool
	m.db.View(func(tx *storage.Tx) error {
		head, found = m.f.LoadAhead(tx, c.Host)
		return nil
	})
	if !found {
		m.t.Fatalf("%s claimed, its queue %v, and no head", c.Host, mh.queue)
	}
	if head.URL != mh.queue[0] {
		m.t.Fatalf("%s's head is %s, the model's %s", c.Host, head.URL, mh.queue[0])
	}
	switch arg % 8 {
	case 0:
		m.update(func(tx *storage.Tx) error { return m.f.Settle(tx, c.Host, head.Seq, m.now) })
		m.f.Cancel(c.Host, m.now)
		mh.queue = mh.queue[1:]
		m.done = append(m.done, head.URL)
		return "settle " + head.URL
	case 1:
		m.f.Pause(c.Host, m.now)
		mh.paused = true
		return "pause " + c.Host
	case 2:
		until := m.now.Add(time.Duration(arg) * 10 * time.Millisecond)
		m.f.Cancel(c.Host, m.now)
		m.f.Hold(c.Host, until, m.now)
		if until.After(mh.hold) {
			mh.hold = until
		}
		return "hold " + c.Host
	}
	m.f.Take(c.Host, head.Seq)
	mh.claim = &modelClaim{id: c.ID, url: head.URL, seq: head.Seq, at: m.now, grouped: mh.ip, notify: c.NotifySent}
	if mh.ip != "" && !c.NotifySent {
		m.t.Fatalf("%s claimed in the spaced group %s without asking to hear when it is sent", c.Host, mh.ip)
	}
	if mh.ip != "" {
		m.groupLast[mh.ip] = m.now // until it is reported sent, the claim is its start
	}
	mh.taken = head.URL
	mh.start = m.now
	return "claim " + head.URL
}

// finish records the outcome of host h's claim: fetched, or failed and
// tried again later after a backoff.
func (m *model) finish(h int, fail bool) string {
	mh := m.hosts[h]
	host := hostName(h)
	if mh.claim == nil {
		return "finish: no claim"
	}
	c := mh.claim
	sent := m.sentAt(c)
	m.f.Back(host, c.id, sent, m.now) // the worker is back
	m.sent(mh, sent)
	m.update(func(tx *storage.Tx) error {
		if !m.f.Release(host, c.id, sent, modelIP(h), m.now) {
			m.t.Fatalf("%s's claim %d had ended", host, c.id)
		}
		if m.f.Release(host, c.id, sent, modelIP(h), m.now) {
			m.t.Fatalf("%s's claim %d released twice", host, c.id)
		}
		var err error
		if fail {
			until := m.f.Fail(host, "HTTP 503", 0, m.now)
			mh.failures++
			want := m.now.Add(min(modelBackoff<<(mh.failures-1), 4*modelBackoff))
			if !until.Equal(want) {
				m.t.Fatalf("%s backs off until %v, want %v", host, until, want)
			}
			mh.hold = until
			err = m.f.Retry(tx, host, c.seq, c.url)
		} else {
			m.f.Recovered(host, m.now)
			mh.failures = 0
			err = m.f.Finish(tx, host, c.seq)
		}
		m.f.Returned(host, m.now)
		if err != nil {
			return err
		}
		return m.f.Save(tx, host)
	})
	mh.queue = slices.DeleteFunc(mh.queue, func(u string) bool { return u == c.url })
	if fail {
		mh.queue = append(mh.queue, c.url)
	} else {
		m.done = append(m.done, c.url)
	}
	mh.ip = modelIP(h)
	mh.saved = mh.hold
	m.dropClaim(mh)
	if fail {
		return "retry " + c.url
	}
	return "finish " + c.url
}

// check asserts the invariants that hold between any two steps.
func (m *model) check() {
	m.t.Helper()
	all := map[string]int{}
	m.db.View(func(tx *storage.Tx) error {
		for i, mh := range m.hosts {
			host := hostName(i)
			var q []string
			tx.ForEachQueued(host, func(_ uint64, url string) error {
				q = append(q, url)
				return nil
			})
			if !slices.Equal(q, mh.queue) {
				m.t.Fatalf("%s's queue in the state file %v, the model's %v", host, q, mh.queue)
			}
			counted := 0
			if fh := m.f.Lookup(host); fh != nil {
				counted = fh.Queued()
			}
			if counted != len(q) {
				m.t.Fatalf("%s counts %d queued, its queue holds %d", host, counted, len(q))
			}
			for _, u := range q {
				all[u]++
			}
		}
		return nil
	})
	for _, u := range m.done {
		all[u]++
	}
	if len(all) != m.next {
		m.t.Fatalf("%d URLs admitted, %d queued or done: lost", m.next, len(all))
	}
	for u, n := range all {
		if n != 1 {
			m.t.Fatalf("%s is %d times queued or done", u, n)
		}
	}
	ips := map[string]int{}
	for _, mh := range m.hosts {
		if mh.claim != nil && mh.claim.grouped != "" {
			ips[mh.claim.grouped]++
		}
	}
	for ip, n := range ips {
		if n > modelIPMax {
			m.t.Fatalf("%d requests in flight to %s", n, ip)
		}
	}
}

// runModel runs the operations ops (pairs of bytes) and checks after each.
func runModel(t *testing.T, ops []byte) {
	m := newModel(t)
	var log []string
	defer func() {
		if t.Failed() {
			n := max(0, len(log)-30)
			t.Logf("last steps:\n%v", log[n:])
		}
	}()
	for i := 0; i+1 < len(ops); i += 2 {
		log = append(log, m.step(ops[i], ops[i+1]))
		m.check()
	}
}

func TestFrontierModel(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			ops := make([]byte, 2*600)
			for i := range ops {
				ops[i] = byte(r.IntN(256))
			}
			runModel(t, ops)
		})
	}
}

func FuzzFrontierModel(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 3, 1, 7, 60, 1, 0, 4, 1, 7, 200, 1, 0, 8, 5, 1, 0})
	f.Add([]byte{0, 0, 0, 3, 0, 4, 1, 0, 1, 0, 1, 0, 5, 128, 1, 0, 6, 128, 7, 80, 1, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 4000 {
			ops = ops[:4000]
		}
		runModel(t, ops)
	})
}

// TestFrontierVerbs runs short scripts of verbs through the model: each
// step's outcome is checked by the model's invariants, and each case
// names the rule it exercises.
func TestFrontierVerbs(t *testing.T) {
	const (
		admit, claim, fetched, failed, wake, requeue, wait, restart = 0, 1, 3, 4, 5, 6, 7, 8
		sent                                                        = wake // on a host not paused: its request's write is reported
	)
	for _, tc := range []struct {
		name string
		ops  []byte
		want []string // the log of the steps that matter, in order
	}{
		{"a host's next request waits its interval from the write, not the claim",
			[]byte{admit, 0, admit, 0, claim, 3, wait, 125, fetched, 0, wait, 140, claim, 3, wait, 25, claim, 3},
			[]string{"claim http://h0.test/p0", "finish http://h0.test/p0", "claim: none open", "claim http://h0.test/p1"}},
		{"a failure backs the host off and sends its URL to the back",
			[]byte{admit, 0, admit, 0, claim, 3, failed, 0, wait, 250, claim, 3, wait, 250, claim, 3},
			[]string{"claim http://h0.test/p0", "retry http://h0.test/p0", "claim: none open", "claim http://h0.test/p1"}},
		{"a URL settled without a request gives the token back",
			[]byte{admit, 0, admit, 0, claim, 0, claim, 3},
			[]string{"settle http://h0.test/p0", "claim http://h0.test/p1"}},
		{"a paused host is not offered until it wakes",
			[]byte{admit, 0, claim, 1, claim, 3, wake, 0, claim, 3},
			[]string{"pause h0.test", "claim: none open", "wake h0.test", "claim http://h0.test/p0"}},
		{"hosts of one IP: at most two requests at once",
			[]byte{admit, 0, admit, 1, admit, 2, admit, 0, admit, 1, admit, 2,
				claim, 3, claim, 3, claim, 3, fetched, 0, fetched, 1, fetched, 2, wait, 255,
				claim, 3, sent, 0, wait, 80, claim, 3, sent, 1, wait, 80, claim, 3, fetched, 0, claim, 3},
			[]string{"claim http://h0.test/p3", "sent http://h0.test/p3", "claim http://h1.test/p4", "claim: none open", "finish http://h0.test/p3", "claim http://h2.test/p5"}},
		{"hosts of one IP: the next waits to hear the last was written, then ip_delay from the write",
			[]byte{admit, 0, admit, 1, admit, 0, admit, 1, claim, 3, claim, 3, fetched, 0, fetched, 1, wait, 255,
				claim, 3, wait, 10, claim, 3, sent, 0, claim, 3, wait, 80, claim, 3},
			[]string{"claim http://h0.test/p2", "claim: none open", "sent http://h0.test/p2", "claim: none open", "claim http://h1.test/p3"}},
		{"a restart after a crash keeps the queues and spaces every host from now",
			[]byte{admit, 0, admit, 0, claim, 3, restart, 0, claim, 3, wait, 255, claim, 3},
			[]string{"restart", "claim: none open", "claim http://h0.test/p0"}},
		{"a recheck joins the back of the queue",
			[]byte{admit, 0, admit, 0, claim, 3, fetched, 0, requeue, 0, wait, 255, claim, 3, fetched, 0, wait, 255, claim, 3},
			[]string{"requeue http://h0.test/p0", "finish http://h0.test/p1", "claim http://h0.test/p0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t)
			var got []string
			for i := 0; i+1 < len(tc.ops); i += 2 {
				got = append(got, m.step(tc.ops[i], tc.ops[i+1]))
				m.check()
			}
			// want is a subsequence of the log.
			j := 0
			for _, g := range got {
				if j < len(tc.want) && g == tc.want[j] {
					j++
				}
			}
			if j < len(tc.want) {
				t.Errorf("steps %q\ndo not include, in order, %q (missing %q)", got, tc.want, tc.want[j])
			}
		})
	}
}
