package crawler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// record applies one worker result inside the batch transaction.
func (c *Crawler) record(tx *storage.Tx, r result) error {
	if err := rememberArchived(tx, r); err != nil {
		return err
	}
	if r.archived != nil {
		c.commits.SyncFirst()
	}
	now := c.cfg.Now()
	host := r.task.host
	// The claim ends here unless it ended when the result came back (see
	// receive): the backoff this result may cause is put in place below,
	// before the coordinator dispatches again.
	var appliedEarlier bool
	if ref := refusedUnsent(r); ref != nil {
		// Nothing was sent: the host's last request stays what it was.
		c.front.Refuse(host, r.task.claim, ref.reason, now)
	} else {
		appliedEarlier = !c.release(&r)
	}
	if !r.sent.IsZero() {
		r.started = r.sent
	}
	if r.task.kind == taskPage {
		// Only once recorded: until its record is written, its queue
		// entry counts in queued.
		defer c.front.Returned(host, now)
	}
	if r.interrupted || r.err != nil && cancelled(c.fetchCtx, r.err) || r.robots != nil && r.robots.Err != nil && cancelled(c.fetchCtx, r.robots.Err) {
		if r.task.kind == taskRobots {
			c.robots.Cut(r.task.origin)
			if oh := urlnorm.Authority(r.task.origin); oh != host {
				// A redirect hop: the origin's host was paused for it
				// (see prepare) and asks for robots.txt again.
				c.front.Wake(oh, now)
			}
		}
		// Stopping: the URL stays at the head of its queue. Whether the
		// request reached the server is unknown, so it counts as sent
		// (its claim is the host's last request).
		return c.front.Save(tx, host)
	}
	var err error
	switch r.task.kind {
	case taskRobots:
		err = c.origins.robotsStep(tx, r, appliedEarlier, now)
	case taskSitemap:
		err = c.urls.recordSitemap(tx, r, now)
	case taskTDMRep:
		if privateRefusal(r.err, host) == nil { // else nothing was sent
			c.cfg.Metrics.TDMRep(r.tdm.Outcome())
		}
		// As for a page: a failure backs the host off (at least
		// Retry-After), an answer (applied by receive) ends its failures.
		if why, retryAfter, failed := tdmRepFailure(c.fetchCtx, r, now); failed {
			c.urls.backOff(host, why, retryAfter, now)
			again := c.rules.sites.Failed(r.task.origin, c.cfg.MaxRetries, now)
			c.log.Info("tdmrep.json failed", "host", host, "origin", r.task.origin, "asked_again", again)
			break
		}
		if r.err == nil {
			c.front.Recovered(host, now)
		}
		err = c.rules.sites.Save(tx, r.task.origin)
	default:
		err = c.recordPage(tx, r, now)
	}
	if err != nil {
		return err
	}
	return c.front.Save(tx, host)
}

func (c *Crawler) recordPage(tx *storage.Tx, r result, now time.Time) error {
	t := r.task
	rec, err := tx.GetURL(t.url)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &storage.URLRecord{URL: t.url}
	}
	// "host" is passed with each line rather than through c.log.With: a
	// logger per page cost an allocation and a handler copy for one line,
	// and the line reads the same.
	if r.err != nil {
		c.cfg.Metrics.Fetch(0, 0, 0)
		c.watch.fetched(t, 0, 0, r.err.Error(), now)
		c.log.Info("fetch", "host", t.host, "url", t.url, "error", r.err.Error(), "duration_ms", now.Sub(r.started).Milliseconds())
		if ref := privateRefusal(r.err, t.host); ref != nil {
			// Nothing was sent: record gave the claim back unspent.
			return c.urls.finish(tx, rec, t, storage.Failed, ref.reason)
		}
		var fe *fetch.Error
		if errors.As(r.err, &fe) && fe.Op == "request" && !fe.Timeout && isPermanent(r.err) {
			return c.urls.finish(tx, rec, t, storage.Failed, r.err.Error())
		}
		return c.urls.retry(tx, rec, t, r.err.Error(), 0, now)
	}
	p := r.page
	c.cfg.Metrics.Fetch(p.Status, r.bodyLen, p.Duration)
	c.watch.fetched(t, p.Status, r.bodyLen, "", now)
	c.front.Answered(t.host, p.Status)
	c.log.Info("fetch", "host", t.host, "url", t.url, "status", p.Status, "bytes", r.bodyLen, "duration_ms", p.Duration.Milliseconds())
	if p.Status == http.StatusTooManyRequests || p.Status >= 500 {
		ra := robotscache.RetryAfter(p.Header.Get("Retry-After"), now)
		return c.urls.retry(tx, rec, t, fmt.Sprintf("HTTP %d", p.Status), ra, now)
	}
	c.front.Recovered(t.host, now)
	if p.Unaccepted {
		// Cut after its headers: a type scope.accept_types does not list.
		c.urls.fetchedRecord(rec, r)
		return c.urls.finish(tx, rec, t, storage.Skipped, fmt.Sprintf("scope.accept_types: content type %q is not accepted", p.ContentType))
	}
	prevSeen := lastSeen(rec)
	if p.Status == http.StatusNotModified && rec.State == storage.Fetched {
		// Unchanged since the last fetch: keep the record as it is.
		rec.CheckedAt = r.started.UTC()
		if err := refuseUnchanged(tx, rec, r); err != nil {
			return err
		}
		c.front.Checked(t.host, rec, prevSeen, 0, r.started)
		return c.urls.finish(tx, rec, t, storage.Fetched, rec.Error)
	}
	found := c.urls.fetchedRecord(rec, r)
	c.front.Checked(t.host, rec, prevSeen, r.fingerprint, r.started)
	for _, f := range found {
		if r.freed && f.Via == "link" {
			continue // admitted in chunks before (see admitChunk)
		}
		if err := c.urls.discover(tx, f); err != nil {
			return err
		}
	}
	if err := c.urls.keepBody(tx, rec, r); err != nil {
		return err
	}
	return c.urls.finish(tx, rec, t, storage.Fetched, rec.Error)
}

// keepBody stores or drops a fetched page's body beside its record, and
// records how many of its links the limits dropped: a parsed page's
// compressed body is kept unless it is noindex, refused by a content-use
// signal, or its host keeps no bodies; an unparsed answer that is not a
// 2xx drops the body and title an earlier fetch left.
func (c *urlWriter) keepBody(tx *storage.Tx, rec *storage.URLRecord, r result) error {
	if r.parsed != nil {
		if err := c.recordLinkLimits(tx, rec, r); err != nil {
			return err
		}
		if r.gzBody != nil && !rec.NoIndex {
			if err := tx.PutCompressedBody(rec.URL, r.gzBody); err != nil {
				return err
			}
		} else if rec.NoIndex || r.refusal != nil || !r.task.keepBody {
			// It may have been indexable, or its host's bodies kept, at
			// an earlier fetch: an old body must not stand beside the
			// new record.
			if err := tx.DeleteBody(rec.URL); err != nil {
				return err
			}
		}
	} else if p := r.page; p.Status < 200 || p.Status >= 300 {
		// A 4xx (or a redirect) on a recheck: the page's old body and
		// title no longer stand for what the URL answers.
		rec.Title = ""
		if err := tx.DeleteBody(rec.URL); err != nil {
			return err
		}
	}
	return nil
}

// fetchedRecord applies a page's response to its record (status,
// validators, title, directives, links, the error worth keeping) and
// returns what the page found for the frontier: a redirect's target, then
// its links. It writes nothing: recordPage writes the record and admits
// what was found, and a cluster node is handed the same before that (see
// handOverEarly), so the two cannot differ.
func (c *urlWriter) fetchedRecord(rec *storage.URLRecord, r result) []frontier.Candidate {
	p := r.page
	rec.CheckedAt = r.started.UTC()
	rec.Status, rec.FetchedAt, rec.ContentType, rec.Bytes = p.Status, r.started.UTC(), p.ContentType, int64(r.bodyLen)
	rec.ETag, rec.LastModified = p.Header.Get("ETag"), p.Header.Get("Last-Modified")
	rec.PayloadDigest = ""
	if r.archived != nil {
		rec.PayloadDigest = r.archived.Payload
	}
	rec.Attempts++
	rec.Error, rec.Links = "", []string{}
	var found []frontier.Candidate
	if r.links != nil {
		// Sized once: a candidate is about 100 bytes, grown three times
		// for a page of three links.
		found = make([]frontier.Candidate, 0, len(r.links.URLs)+1)
	}
	if p.Location != "" {
		if f, ok := c.redirectTarget(rec, p.Location); ok {
			found = append(found, f)
		}
	}
	if r.parsed != nil {
		rec.Title = r.parsed.Title
		rec.NoIndex, rec.NoFollow = r.parsed.Directives.NoIndex, r.parsed.Directives.NoFollow
		if r.links != nil { // nil: the page said nofollow
			rec.Links = append(rec.Links, r.links.URLs...)
			rec.LinksDropped = r.links.Dropped
			for _, n := range r.links.URLs {
				found = append(found, frontier.Candidate{URL: n, Depth: rec.Depth + 1, Via: "link", Parent: rec.URL})
			}
		}
	}
	rec.ContentUse = contentuse.StoredUse(r.uses)
	switch {
	case r.refusal != nil:
		// Fetched, not stored: no body, no title (see responseUse).
		rec.Title, rec.Error = "", notStoredReason(r.refusal)
	case r.parseErr != nil:
		rec.Error = r.parseErr.Error()
	case p.Truncated:
		rec.Error = fmt.Sprintf("body truncated at %d bytes", r.bodyLen)
	}
	return found
}

// finish writes the final record and takes the URL off its queue.
func (c *urlWriter) finish(tx *storage.Tx, rec *storage.URLRecord, t task, state storage.State, errText string) error {
	prev := rec.State
	rec.State, rec.Error = state, errText
	c.event(Event{URL: rec.URL, State: string(state), Status: rec.Status, Reason: errText})
	if err := c.front.ScheduleCheck(tx, rec, c.cfg.Now()); err != nil {
		return err
	}
	if rec.Links == nil {
		rec.Links = []string{}
	}
	if err := tx.PutURL(rec, prev); err != nil {
		return err
	}
	return c.front.Finish(tx, t.host, t.seq)
}

// retry handles 5xx, 429, timeouts and network errors: the whole host backs
// off (at least Retry-After), and the URL goes to the back of its queue, or
// fails after MaxRetries attempts.
func (c *urlWriter) retry(tx *storage.Tx, rec *storage.URLRecord, t task, why string, retryAfter time.Duration, now time.Time) error {
	rec.Attempts++
	until := c.backOff(t.host, why, retryAfter, now)
	if rec.Attempts >= c.cfg.MaxRetries {
		return c.finish(tx, rec, t, storage.Failed, fmt.Sprintf("%s (gave up after %d attempts)", why, rec.Attempts))
	}
	rec.Error = why
	c.event(Event{URL: rec.URL, State: "retry", Reason: why + ", host backs off until " + until.Format(time.TimeOnly)})
	// The state is unchanged: queued, or fetched for a recheck.
	if err := tx.PutURL(rec, rec.State); err != nil {
		return err
	}
	return c.front.Retry(tx, t.host, t.seq, rec.URL)
}

// backOff holds a host after a 5xx, 429, timeout or network error:
// exponential in its consecutive failures, with jitter, and at least
// Retry-After (capped at MaxHold).
func (c *urlWriter) backOff(host, why string, retryAfter time.Duration, now time.Time) time.Time {
	until := c.front.Fail(host, why, retryAfter, now)
	c.log.Info("host backs off", "host", host, "until", until.Format(time.RFC3339), "why", why)
	return until
}

// isPermanent: errors a retry cannot fix (the host name does not exist).
func isPermanent(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// redirectTarget keeps a redirect's target in the record's links and
// returns it as a new URL to admit, unless it is unusable or past the
// redirect limit (the record's error says which).
func (c *urlWriter) redirectTarget(rec *storage.URLRecord, location string) (frontier.Candidate, bool) {
	n, err := urlnorm.Normalise(location)
	if err != nil {
		rec.Error = "redirect: " + err.Error()
		return frontier.Candidate{}, false
	}
	rec.Links = []string{n}
	if rec.Redirects+1 > c.cfg.MaxRedirects {
		rec.Error = fmt.Sprintf("redirect chain longer than %d hops: not followed", c.cfg.MaxRedirects)
		return frontier.Candidate{}, false
	}
	return frontier.Candidate{URL: n, Depth: rec.Depth, Via: "redirect", Parent: rec.URL, Redirects: rec.Redirects + 1}, true
}

// recordLinkLimits records a page's unusable links and logs the links its
// limit left out, unless the page said nofollow (then extract returned
// none).
func (c *urlWriter) recordLinkLimits(tx *storage.Tx, rec *storage.URLRecord, r result) error {
	if r.links == nil {
		return nil
	}
	if err := frontier.RecordUnusable(tx, rec.URL, rec.Depth+1, r.links.Bad); err != nil {
		return err
	}
	if r.links.Dropped > 0 || r.links.BadMore > 0 {
		c.log.Info("links not queued", "url", rec.URL, "over_limit", r.links.Dropped, "unusable_uncounted", r.links.BadMore,
			"limit", c.cfg.MaxLinksPerPage)
	}
	return nil
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + time.Duration(rand.Int64N(int64(d)/5+1)) - d/10
}
