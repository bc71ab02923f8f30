package frontier

import (
	"time"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// A host whose robots.txt cannot be had (it stayed unreachable, or our own
// configuration refused its address) cannot be crawled this run: its
// origin's queued URLs fail with the reason, and the next run, which may
// reach it or be configured to, queues them again (RequeueGivenUp). URLs
// of the origin found after the give-up are refused at admission
// (Verdicts) or dispatch with the same reason, so they come back too.

// GiveUpOrigin records every queued URL of origin on host as failed for
// reason and takes it off the queue, in tx. Until batch gen commits (0:
// with the next write), the committed queue still holds them. It returns
// the URLs failed.
func (f *Frontier[H]) GiveUpOrigin(tx *storage.Tx, host, origin, reason string, gen uint64, now time.Time) ([]string, error) {
	type entry struct {
		seq uint64
		url string
	}
	var doomed []entry
	err := tx.ForEachQueued(host, func(seq uint64, url string) error {
		if urlnorm.Origin(url) == origin {
			doomed = append(doomed, entry{seq, url})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	seqs := make([]uint64, 0, len(doomed))
	failed := make([]string, 0, len(doomed))
	for _, e := range doomed {
		rec, err := tx.GetURL(e.url)
		if err != nil {
			return failed, err
		}
		if rec == nil {
			// A queue entry whose record was lost (a damaged file): it
			// goes with the others, there is nothing to fail.
			seqs = append(seqs, e.seq)
			continue
		}
		prev := rec.State // queued, or fetched for a recheck
		rec.State, rec.Error = storage.Failed, reason
		Unqueued(rec)
		if err := tx.PutURL(rec, prev); err != nil {
			return failed, err
		}
		seqs = append(seqs, e.seq)
		failed = append(failed, rec.URL)
	}
	if err := f.Drop(tx, host, seqs, gen, now); err != nil {
		return failed, err
	}
	f.Wake(host, now)
	return failed, nil
}

// RequeueGivenUp queues again, in tx, the URLs of origin that a previous
// run failed for a reason gaveUp recognises. Call it in a transaction
// committed before Restore's, which then counts them (a transaction's
// per-host queue counts are written when it commits).
func RequeueGivenUp(tx *storage.Tx, origin string, gaveUp func(errText string) bool) (int, error) {
	var again []*storage.URLRecord
	err := tx.ForEachURLWithPrefix(origin+"/", func(r *storage.URLRecord) error {
		if r.State == storage.Failed && gaveUp(r.Error) {
			again = append(again, r)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	host := urlnorm.Authority(origin)
	for _, r := range again {
		r.State, r.Error = storage.Queued, ""
		if err := tx.PutURL(r, storage.Failed); err != nil {
			return 0, err
		}
		if err := tx.Enqueue(host, r.URL); err != nil {
			return 0, err
		}
	}
	return len(again), nil
}
