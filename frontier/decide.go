package frontier

import (
	"errors"
	"time"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// SettleUnfetched records the head of host's queue (seq, url), decided
// without a request, in state for reason (disallowed by robots.txt, its
// robots.txt given up, handled by another node), and takes it off the
// queue. A page fetched before and disallowed now stays on the recheck
// schedule (see SettleSchedule).
func (f *Frontier[H]) SettleUnfetched(tx *storage.Tx, host string, seq uint64, url string, state storage.State, reason string, now time.Time) error {
	return f.SettleRefused(tx, host, seq, url, Verdict{State: state, Reason: reason}, now)
}

// SettleRefused is SettleUnfetched for a head its site refuses: the
// record takes v's content-use signals too, when it has some.
func (f *Frontier[H]) SettleRefused(tx *storage.Tx, host string, seq uint64, url string, v Verdict, now time.Time) error {
	rec, err := tx.GetURL(url)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &storage.URLRecord{URL: url, Links: []string{}}
	}
	prev := rec.State
	rec.State, rec.Error = v.State, v.Reason
	if v.ContentUse != nil {
		rec.ContentUse = v.ContentUse
	}
	if err := f.SettleSchedule(tx, rec, now); err != nil {
		return err
	}
	if err := tx.PutURL(rec, prev); err != nil {
		return err
	}
	return f.Settle(tx, host, seq, now)
}

// Seed admits raw as a seed (depth 0, still subject to scope, limits and
// robots.txt) and says what became of it: "queued", "known" (seen
// before: left as it is, and known is its record, for the caller to say
// in which state), "out of scope", "invalid: why", or the state it was
// recorded in and why ("disallowed: robots.txt: ...").
func (f *Frontier[H]) Seed(tx *storage.Tx, raw string, now time.Time) (outcome string, known *storage.URLRecord, err error) {
	n, err := urlnorm.Normalise(raw)
	if err != nil {
		return "invalid: " + err.Error(), nil, nil
	}
	known, err = tx.GetURL(n)
	if errors.Is(err, storage.ErrDamaged) {
		// A record that does not decode is a record all the same: the
		// URL is known, and one damaged record does not fail the seeds
		// around it (status and state check report the damage).
		return "known", nil, nil
	}
	if err != nil || known != nil {
		return "known", known, err
	}
	if !f.InScope(n) {
		return "out of scope", nil, nil
	}
	if _, err := f.Discover(tx, Candidate{URL: n, Via: "seed"}, now); err != nil {
		return "", nil, err
	}
	if r, _ := tx.GetURL(n); r != nil && r.State != storage.Queued {
		return string(r.State) + ": " + r.Error, nil, nil
	}
	return "queued", nil, nil
}

// HandedOff is what AdmitHandedOff made of a URL handed to a cluster
// node.
type HandedOff struct {
	// Queued: the URL is in this node's queue (newly, again, or already).
	Queued bool
	// OutOfScope: outside the crawl's scope; nothing was recorded.
	OutOfScope bool
	// Record is the URL's decided record when it was decided before here,
	// or refused at admission. Nil when Queued or OutOfScope.
	Record *storage.URLRecord
	// Admission is the admission of a URL never seen here (its Refused
	// says whether robots.txt refused it).
	Admission Admission
}

// AdmitHandedOff admits a URL the cluster hands to this node. A URL seen
// before is reported as it stands (queued, or its decided record); one
// this node dropped when its shard moved away (recorded skipped for
// releasedReason) is queued again.
func (f *Frontier[H]) AdmitHandedOff(tx *storage.Tx, c Candidate, releasedReason string, now time.Time) (HandedOff, error) {
	var h HandedOff
	if !f.InScope(c.URL) {
		h.OutOfScope = true
		return h, nil
	}
	rec, err := tx.GetURL(c.URL)
	if err != nil {
		return h, err
	}
	switch {
	case rec == nil:
		if h.Admission, err = f.Admit(tx, c, now); err != nil || h.Admission.Queued {
			h.Queued = h.Admission.Queued
			return h, err
		}
		h.Record, err = tx.GetURL(c.URL)
		return h, err
	case rec.State == storage.Queued:
		h.Queued = true
		return h, nil
	case rec.State == storage.Skipped && rec.Error == releasedReason:
		prev := rec.State
		rec.State, rec.Error = storage.Queued, ""
		if err := tx.PutURL(rec, prev); err != nil {
			return h, err
		}
		h.Queued = true
		return h, f.Requeue(tx, c.URL, now)
	}
	h.Record = rec
	return h, nil
}
