package robotscache

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

const (
	origin     = "https://example.org"
	rulesBody  = "User-agent: *\nDisallow: /private\n"
	otherRules = "User-agent: *\nDisallow: /other\n"
)

func parsedResult(body string, maxAge time.Duration) Result {
	return Result{Outcome: Parsed, Status: 200, Body: []byte(body), Robots: robots.Parse([]byte(body)), MaxAge: maxAge}
}

// step is one event in an origin's life, at a time since the start.
type step struct {
	at time.Duration
	// next: ask what a URL needs (want); parsed, unavailable, unreachable:
	// a fetch came back; cut: a fetch ended without an outcome.
	op   string
	rr   Result // for unreachable: RetryAfter, Err
	body string // for parsed (rulesBody if empty)
	want Action // for next
	// For next with Decide: whether /private is allowed then.
	privateAllowed bool
	// For unreachable: what it did.
	wantWait               time.Duration
	wantGoodCopy, wantGave bool
}

func TestCacheLifecycle(t *testing.T) {
	policy := Policy{TTL: 24 * time.Hour, Retries: 2, RetryBase: 15 * time.Second, MaxHold: time.Hour}
	day := 24 * time.Hour
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"fetched once per origin, kept for the TTL", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "next", want: Wait}, // a second host of the origin waits for the same fetch
			{at: time.Second, op: "parsed"},
			{at: 2 * time.Second, op: "next", want: Decide},
			{at: day, op: "next", want: Decide},
			{at: day + time.Second, op: "next", want: FetchFirst},
		}},
		{"max-age shortens the TTL", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "parsed", rr: Result{MaxAge: time.Hour}},
			{at: 59 * time.Minute, op: "next", want: Decide},
			{at: 61 * time.Minute, op: "next", want: FetchFirst},
		}},
		{"max-age never lengthens it", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "parsed", rr: Result{MaxAge: 2 * day}},
			{at: day + time.Minute, op: "next", want: FetchFirst},
		}},
		{"unavailable allows everything for the TTL", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "unavailable"},
			{at: time.Hour, op: "next", want: Decide, privateAllowed: true},
		}},
		{"unreachable: retries doubling, then its URLs fail", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "unreachable", wantWait: 15 * time.Second},
			{at: 10 * time.Second, op: "next", want: Hold},
			{at: 15 * time.Second, op: "next", want: FetchFirst},
			{at: 15 * time.Second, op: "unreachable", wantWait: 30 * time.Second},
			{at: 44 * time.Second, op: "next", want: Hold},
			{at: 45 * time.Second, op: "next", want: FetchFirst},
			{at: 45 * time.Second, op: "unreachable", wantGave: true},
			{at: 46 * time.Second, op: "next", want: Fail},
			{at: 2 * day, op: "next", want: Fail}, // for the rest of the run
		}},
		{"Retry-After longer than the backoff is kept, up to MaxHold", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "unreachable", rr: Result{RetryAfter: 10 * time.Minute}, wantWait: 10 * time.Minute},
			{at: 9 * time.Minute, op: "next", want: Hold},
			{at: 10 * time.Minute, op: "next", want: FetchFirst},
			{at: 10 * time.Minute, op: "unreachable", rr: Result{RetryAfter: 5 * time.Hour}, wantWait: time.Hour},
		}},
		{"a success in between starts the count again", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "unreachable", wantWait: 15 * time.Second},
			{at: 15 * time.Second, op: "next", want: FetchFirst},
			{at: 15 * time.Second, op: "unavailable"},
			{at: day + time.Minute, op: "next", want: FetchFirst},
			{at: day + time.Minute, op: "unreachable", wantWait: 15 * time.Second},
		}},
		{"the last good copy stands in while unreachable", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "parsed"},
			{at: day + time.Minute, op: "next", want: FetchFirst},
			{at: day + time.Minute, op: "unreachable", wantGoodCopy: true, wantWait: 15 * time.Second},
			{at: day + time.Minute + 10*time.Second, op: "next", want: Decide}, // by the good copy: /private disallowed
			{at: day + time.Minute + 15*time.Second, op: "next", want: FetchFirst},
			{at: day + time.Minute + 15*time.Second, op: "parsed", body: otherRules},
			{at: day + 2*time.Minute, op: "next", want: Decide, privateAllowed: true}, // the new file's rules
		}},
		{"a good copy over 30 days old does not", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "parsed"},
			{at: 31 * day, op: "next", want: FetchFirst},
			{at: 31 * day, op: "unreachable", wantWait: 15 * time.Second},
			{at: 31*day + time.Second, op: "next", want: Hold},
		}},
		{"a refused private address fails at once", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "unreachable", rr: Result{Err: fmt.Errorf("dial: %w", fetch.ErrPrivateAddress)}, wantGave: true},
			{at: time.Second, op: "next", want: Fail},
		}},
		{"a cut fetch is asked for again", []step{
			{at: 0, op: "next", want: FetchFirst},
			{at: 0, op: "next", want: Wait},
			{at: time.Second, op: "cut"},
			{at: time.Second, op: "next", want: FetchFirst},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(policy)
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				switch s.op {
				case "next":
					got, o := c.Next(origin, now)
					if got != s.want {
						t.Fatalf("step %d (%v): Next = %v, want %v", i, s.at, got, s.want)
					}
					if got == Decide {
						if allowed := o.Rules().Allowed("bot", "/private"); allowed != s.privateAllowed {
							t.Errorf("step %d: /private allowed = %v, want %v", i, allowed, s.privateAllowed)
						}
						if !o.Rules().Allowed("bot", "/public") {
							t.Errorf("step %d: /public disallowed", i)
						}
					}
				case "parsed":
					body := s.body
					if body == "" {
						body = rulesBody
					}
					c.Apply(origin, parsedResult(body, s.rr.MaxAge), now)
				case "unavailable":
					c.Apply(origin, Result{Outcome: Unavailable, Status: 404, Robots: AllowAll()}, now)
				case "unreachable":
					rr := s.rr
					rr.Outcome, rr.Robots = Unreachable, DisallowAll()
					if rr.Err == nil {
						rr.Status = 503
					}
					o, u := c.Unreachable(origin, rr, now, now)
					if u.GoodCopy != s.wantGoodCopy || u.GaveUp != s.wantGave || u.Wait != s.wantWait && !s.wantGave {
						t.Errorf("step %d: %+v, want good copy %v, gave up %v, wait %v", i, u, s.wantGoodCopy, s.wantGave, s.wantWait)
					}
					if !s.wantGoodCopy && !s.wantGave && !o.RetryAt().Equal(now.Add(s.wantWait)) {
						t.Errorf("step %d: retry at %v, want %v", i, o.RetryAt(), now.Add(s.wantWait))
					}
				case "cut":
					c.Cut(origin)
				default:
					t.Fatalf("step %d: op %q", i, s.op)
				}
			}
		})
	}
}

// TestCacheRecordRestore: what Record writes, Restore reads back as the
// same outcome and decisions; an unreachable file is asked for again (it
// is still counted unreachable until then), and its last good copy kept.
func TestCacheRecordRestore(t *testing.T) {
	policy := Policy{TTL: 24 * time.Hour, Retries: 3, RetryBase: 15 * time.Second, MaxHold: time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		rr       Result
		want     Action
		private  bool
		goodCopy bool
	}{
		{"parsed", parsedResult(rulesBody, 0), Decide, false, true},
		{"unavailable", Result{Outcome: Unavailable, Status: 404, Robots: AllowAll()}, Decide, true, false},
		{"unreachable", Result{Outcome: Unreachable, Status: 503, Robots: DisallowAll()}, FetchFirst, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(policy)
			c.Next(origin, t0)
			if tc.rr.Outcome == Unreachable {
				c.Unreachable(origin, tc.rr, t0, t0)
			} else {
				c.Apply(origin, tc.rr, t0)
			}
			rec := c.Record(origin, tc.rr, t0)
			again := NewCache(policy)
			again.Restore(origin, rec, t0)
			if o := again.Lookup(origin); o.Outcome() != tc.rr.Outcome {
				t.Errorf("after Restore: outcome %v, want %v (the hosts gauge counts it)", o.Outcome(), tc.rr.Outcome)
			}
			got, o := again.Next(origin, t0.Add(time.Hour))
			if got != tc.want {
				t.Fatalf("after Restore: %v, want %v (record %+v)", got, tc.want, rec)
			}
			if got == Decide && o.Rules().Allowed("bot", "/private") != tc.private {
				t.Errorf("after Restore: /private allowed = %v, want %v", !tc.private, tc.private)
			}
			if (rec.GoodBody != nil) != tc.goodCopy {
				t.Errorf("record keeps a good copy: %v, want %v", rec.GoodBody != nil, tc.goodCopy)
			}
		})
	}
}

// TestCacheRestoreCountsAttemptsOn: a restart counts an unreachable
// file's attempts on from its record, so the next failure waits the next
// attempt's delay and the retries run out across runs; an origin the last
// run gave up on (its record says so, or, written before it could, its
// retries are spent with no good copy) starts again from the first.
func TestCacheRestoreCountsAttemptsOn(t *testing.T) {
	policy := Policy{TTL: 24 * time.Hour, Retries: 3, RetryBase: 15 * time.Second, MaxHold: time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	unreachable := Result{Outcome: Unreachable, Status: 503, Robots: DisallowAll()}
	// written: the record a run writes after n unreachable fetches (the
	// last one refused as a private address if private).
	written := func(n int, private bool) *storage.RobotsRecord {
		c := NewCache(policy)
		rr := unreachable
		for i := range n {
			if private && i == n-1 {
				rr = Result{Outcome: Unreachable, Robots: DisallowAll(), Err: fmt.Errorf("dial: %w", fetch.ErrPrivateAddress)}
			}
			c.Next(origin, t0)
			c.Unreachable(origin, rr, t0, t0)
		}
		return c.Record(origin, rr, t0)
	}
	rec := func(attempts int, good bool) *storage.RobotsRecord {
		r := &storage.RobotsRecord{FetchedAt: t0, Outcome: Unreachable.String(), Status: 503, Attempts: attempts}
		if good {
			r.GoodBody, r.GoodAt = []byte(rulesBody), t0.Add(-time.Hour)
		}
		return r
	}
	longAgo := func(r *storage.RobotsRecord) *storage.RobotsRecord {
		r.FetchedAt = t0.Add(-2 * policy.TTL)
		return r
	}
	notGivenUp := func(r *storage.RobotsRecord) *storage.RobotsRecord {
		r.GaveUp = new(bool)
		return r
	}
	for _, tc := range []struct {
		name     string
		rec      *storage.RobotsRecord
		attempt  int // the next failure's
		wait     time.Duration
		goodCopy bool
	}{
		{"one attempt made", written(1, false), 2, 30 * time.Second, false},
		{"two attempts made", written(2, false), 3, time.Minute, false},
		{"the last retry made", written(3, false), 4, 0, false}, // gives up
		{"gave up", written(4, false), 1, 15 * time.Second, false},
		{"a private address refused", written(1, true), 1, 15 * time.Second, false},
		{"written before gave_up, retries spent", rec(4, false), 1, 15 * time.Second, false},
		{"a good copy standing in past the retries", rec(5, true), 6, 8 * time.Minute, true},
		{"no attempts recorded", rec(0, false), 1, 15 * time.Second, false},
		// Written by a run with more retries than this one's: it had not
		// given up, so the count goes on and this failure gives up (the
		// rule for files from before gave_up would start it again).
		{"robots_retries lowered since", notGivenUp(rec(4, false)), 5, 0, false},
		// Tried last two days ago (more than the TTL): a run that late
		// starts the count afresh.
		{"attempts older than the TTL", longAgo(written(2, false)), 1, 15 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(policy)
			c.Restore(origin, tc.rec, t0.Add(time.Minute))
			now := t0.Add(time.Minute)
			if a, _ := c.Next(origin, now); a != FetchFirst {
				t.Fatalf("after Restore: %v, want FetchFirst", a)
			}
			o, u := c.Unreachable(origin, unreachable, now, now)
			gaveUp := tc.wait == 0 && !tc.goodCopy
			if o.Attempts() != tc.attempt || u.Wait != tc.wait || u.GaveUp != gaveUp || u.GoodCopy != tc.goodCopy {
				t.Errorf("next failure: attempt %d, %+v; want attempt %d, wait %v, gave up %v, good copy %v",
					o.Attempts(), u, tc.attempt, tc.wait, gaveUp, tc.goodCopy)
			}
		})
	}
}

// TestCacheImport: a record from another node is taken only when it is
// newer than ours, no fetch is under way here, and it still decides.
func TestCacheImport(t *testing.T) {
	policy := Policy{TTL: 24 * time.Hour, Retries: 3, RetryBase: 15 * time.Second, MaxHold: time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	theirs := func(at time.Time) *storage.RobotsRecord {
		return &storage.RobotsRecord{FetchedAt: at, Outcome: Parsed.String(), Status: 200, Body: []byte(otherRules), ExpiresAt: at.Add(24 * time.Hour)}
	}
	for _, tc := range []struct {
		name  string
		ours  string // "", "parsed", "fetching"
		rec   *storage.RobotsRecord
		taken bool
	}{
		{"unknown here", "", theirs(t0), true},
		{"newer than ours", "parsed", theirs(t0.Add(time.Minute)), true},
		{"older than ours", "parsed", theirs(t0.Add(-time.Minute)), false},
		{"as new as ours", "parsed", theirs(t0), false},
		{"a fetch under way here", "fetching", theirs(t0.Add(time.Minute)), false},
		{"expired", "", theirs(t0.Add(-25 * time.Hour)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(policy)
			switch tc.ours {
			case "parsed":
				c.Next(origin, t0)
				c.Apply(origin, parsedResult(rulesBody, 0), t0)
			case "fetching":
				c.Next(origin, t0)
			}
			_, taken := c.Import(origin, tc.rec, t0.Add(2*time.Minute))
			if taken != tc.taken {
				t.Fatalf("Import taken = %v, want %v", taken, tc.taken)
			}
			if taken {
				got, o := c.Next(origin, t0.Add(2*time.Minute))
				if got != Decide || o.Rules().Allowed("bot", "/other") {
					t.Errorf("after Import: %v, /other allowed %v; want their rules", got, o.Rules().Allowed("bot", "/other"))
				}
			}
		})
	}
}

// TestCacheUnreachableTimes pins which clock each part of an unreachable
// outcome uses: the good copy's age counts to when the request was sent
// (started), the stand-in's expiry and the next try from when the outcome
// is applied (now); a Retry-After shorter than the backoff does not
// shorten it; and with a good copy the tries go on past Retries, never
// more than the TTL apart.
func TestCacheUnreachableTimes(t *testing.T) {
	policy := Policy{TTL: 24 * time.Hour, Retries: 2, RetryBase: 15 * time.Second, MaxHold: time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	unreachable := Result{Outcome: Unreachable, Status: 503, Robots: DisallowAll()}
	withGoodCopy := func() *Cache {
		c := NewCache(policy)
		c.Next(origin, t0)
		c.Apply(origin, parsedResult(rulesBody, 0), t0)
		return c
	}

	t.Run("good copy age from the send, expiry from now", func(t *testing.T) {
		c := withGoodCopy()
		started := t0.Add(GoodCopyMaxAge - time.Minute) // under 30 days old when sent
		now := started.Add(2 * time.Minute)             // over when applied
		c.Next(origin, started)
		o, u := c.Unreachable(origin, unreachable, started, now)
		if !u.GoodCopy {
			t.Fatalf("%+v: the good copy's age counts to the send", u)
		}
		if !o.Usable(now.Add(14*time.Second)) || o.Usable(now.Add(15*time.Second)) {
			t.Errorf("the good copy stands in until now + 15s")
		}
		if !o.GoodAt().Equal(t0) {
			t.Errorf("GoodAt %v, want %v", o.GoodAt(), t0)
		}
	})
	t.Run("a short Retry-After does not shorten the backoff", func(t *testing.T) {
		c := NewCache(policy)
		c.Next(origin, t0)
		rr := unreachable
		rr.RetryAfter = time.Second
		if _, u := c.Unreachable(origin, rr, t0, t0); u.Wait != 15*time.Second {
			t.Errorf("wait %v, want 15s", u.Wait)
		}
	})
	t.Run("a good copy keeps it going, at most a TTL between tries", func(t *testing.T) {
		c := withGoodCopy()
		now := t0.Add(25 * time.Hour)
		var u Unreachability
		for i := range 14 {
			if a, _ := c.Next(origin, now); a != FetchFirst {
				t.Fatalf("try %d: %v, want FetchFirst", i, a)
			}
			_, u = c.Unreachable(origin, unreachable, now, now)
			if !u.GoodCopy || u.GaveUp {
				t.Fatalf("try %d: %+v, want the good copy, not giving up", i, u)
			}
			if u.Wait > policy.TTL {
				t.Fatalf("try %d: wait %v, longer than the TTL", i, u.Wait)
			}
			now = now.Add(u.Wait)
		}
		if u.Wait != policy.TTL {
			t.Errorf("after 14 tries: wait %v, want the TTL (15s doubled 13 times is 34h8m)", u.Wait)
		}
	})
	t.Run("the record of an unreachable file", func(t *testing.T) {
		c := withGoodCopy()
		t1 := t0.Add(40 * 24 * time.Hour) // the good copy is too old to stand in
		c.Next(origin, t1)
		rr := Result{Outcome: Unreachable, Robots: DisallowAll(), Err: fmt.Errorf("dial: refused")}
		c.Unreachable(origin, rr, t1, t1)
		rec := c.Record(origin, rr, t1)
		if rec.Attempts != 1 || rec.Error != "dial: refused" || !rec.ExpiresAt.IsZero() || rec.GoodBody == nil ||
			!rec.GoodAt.Equal(t0) || !rec.FetchedAt.Equal(t1) || rec.Body != nil {
			t.Errorf("record %+v", rec)
		}
		again := NewCache(policy)
		again.Restore(origin, rec, t1)
		if a, _ := again.Next(origin, t1); a != FetchFirst {
			t.Errorf("after Restore: %v, want FetchFirst (a new run asks again)", a)
		}
	})
	// A restart while a good copy stands in: the copy decides until the
	// retry the record names, as before the stop; robots.txt is asked
	// then, not at the host's first slot of the new run.
	t.Run("a restart keeps the good copy until the retry", func(t *testing.T) {
		c := withGoodCopy()
		t1 := t0.Add(25 * time.Hour) // the copy's TTL is over: asked again
		c.Next(origin, t1)
		_, u := c.Unreachable(origin, unreachable, t1, t1)
		rec := c.Record(origin, unreachable, t1)
		again := NewCache(policy)
		again.Restore(origin, rec, t1)
		restarted := t1.Add(time.Second)
		a, o := again.Next(origin, restarted)
		if a != Decide || o.Outcome() != Parsed || o.Rules().Allowed("politecrawl", "/private/x") {
			t.Errorf("restarted %v before the retry: %v, outcome %v; want Decide by the good copy (Disallow: /private)", u.Wait, a, o.Outcome())
		}
		if a, _ := again.Next(origin, t1.Add(u.Wait)); a != FetchFirst {
			t.Errorf("at the retry: %v, want FetchFirst", a)
		}
	})
	// Not when the copy is too old by the restart, or the record's retry
	// is further off than a run sets (the wait is capped at the TTL).
	t.Run("a restart drops a good copy too old or too long held", func(t *testing.T) {
		c := withGoodCopy()
		t1 := t0.Add(25 * time.Hour)
		c.Next(origin, t1)
		c.Unreachable(origin, unreachable, t1, t1)
		for _, tc := range []struct {
			name string
			edit func(*storage.RobotsRecord)
			at   time.Time
		}{
			{"30 days old at the restart", func(*storage.RobotsRecord) {}, t0.Add(GoodCopyMaxAge)},
			{"retry weeks away", func(r *storage.RobotsRecord) { r.ExpiresAt = t1.Add(21 * 24 * time.Hour) }, t1.Add(time.Second)},
		} {
			rec := c.Record(origin, unreachable, t1)
			tc.edit(rec)
			again := NewCache(policy)
			again.Restore(origin, rec, tc.at)
			if a, o := again.Next(origin, tc.at); a != FetchFirst || o.Outcome() == Parsed {
				t.Errorf("%s: %v, outcome %v; want FetchFirst, the copy not standing in", tc.name, a, o.Outcome())
			}
		}
	})
}
