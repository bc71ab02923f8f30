package crawler

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// The crawler's side of content-use signals (crawler/contentuse). A URL's
// robots.txt signals are read where its allow and disallow rules are
// (refusePage: admission's Verdict and dispatch both ask it), and handed
// to the worker with the task; the worker adds the response's own signals
// (headers, meta tags), decides whether the response may be stored, and
// writes them into the WARC metadata record; record keeps them in the
// URL's record.

// refusePage is disallowed, then, for a URL the rules allow, the
// content-use signals of its robots.txt (and tdmrep.json) against the
// declared purpose: a no refuses it as a disallow does, with the line
// that said it, and its record keeps what the signals said of each use,
// as a fetched page's does. The zero Verdict: allowed.
func (c *siteRules) refusePage(o *robotscache.Origin, url string) frontier.Verdict {
	if reason, ok := c.disallowed(o, url); !ok {
		return frontier.Verdict{State: storage.Disallowed, Reason: reason}
	}
	if c.cfg.Purpose == "" {
		return frontier.Verdict{}
	}
	if r, uses, refused := c.refusedBy(c.siteUse(o, url)); refused {
		return frontier.Verdict{State: storage.Disallowed, Reason: r.String(), ContentUse: contentuse.StoredUse(uses)}
	}
	return frontier.Verdict{}
}

// refusedBy reports whether stmts refuse the declared purpose, with the
// refusal and what they say of each use.
func (c *siteRules) refusedBy(stmts []contentuse.Statement) (contentuse.Refusal, contentuse.Uses, bool) {
	if c.cfg.Purpose == "" || len(stmts) == 0 {
		return contentuse.Refusal{}, nil, false // the common case: admission asks this of every link
	}
	uses := contentuse.Combine(stmts)
	r, refused := uses.Refuses(c.cfg.Purpose, false)
	return r, uses, refused
}

// siteUse is what url's site says of it before it is fetched: its
// robots.txt lines, then its origin's tdmrep.json (asked for only with a
// declared purpose).
func (c *siteRules) siteUse(o *robotscache.Origin, url string) []contentuse.Statement {
	stmts := contentuse.RobotsUse(o.Rules(), c.cfg.Agent, url)
	if c.sites != nil {
		if s := c.sites.Statement(originOf(url), contentuse.PathOf(url)); !s.Empty() {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// tdmRepPath is where TDMRep puts a site's file.
const tdmRepPath = "/.well-known/tdmrep.json"

// mayAskTDMRep reports whether url's origin's tdmrep.json may be
// requested before url: only when robots.txt allows both the file (it is
// a request like any other) and url, and its content-use lines do not
// already refuse the declared purpose for url (else url is not about to
// be fetched, whatever the file says, and it would be asked for nothing).
func (c *siteRules) mayAskTDMRep(o *robotscache.Origin, url string) bool {
	if _, ok := c.disallowed(o, url); !ok || c.robotsRefuse(o, url) {
		return false
	}
	_, ok := c.disallowed(o, originOf(url)+tdmRepPath)
	return ok
}

// robotsRefuse reports whether url's robots.txt content-use lines alone
// refuse the declared purpose: no site file can undo that (a no wins
// over any yes, see contentuse.Combine).
func (c *siteRules) robotsRefuse(o *robotscache.Origin, url string) bool {
	_, _, refused := c.refusedBy(contentuse.RobotsUse(o.Rules(), c.cfg.Agent, url))
	return refused
}

// readTDMRep fetches an origin's tdmrep.json and reads it on the worker
// (see contentuse.ReadTDMRep). A 429 or 5xx answer, or a network error,
// is no answer: see tdmRepFailure.
func (p *pool) readTDMRep(ctx context.Context, t task, r *result) {
	resp, err := p.fetcher.Fetch(ctx, fetch.Request{URL: t.url, Control: true})
	r.page, r.err = resp, err
	r.tdm = contentuse.ReadTDMRep(resp, err, r.started)
}

// tdmRepFailure says whether a tdmrep.json result makes its host back off
// as a page's would (a 429 or 5xx, a network error or timeout; not a
// stop, our private-address guard or a name that does not exist), and
// then why and its Retry-After. The file is then asked for again, until
// the crawl's retries are spent (see contentuse.Sites.Failed).
func tdmRepFailure(fetchCtx context.Context, r result, now time.Time) (why string, retryAfter time.Duration, failed bool) {
	switch {
	case r.interrupted || r.err != nil && (cancelled(fetchCtx, r.err) || privateRefusal(r.err, r.task.host) != nil || isPermanent(r.err)):
		return "", 0, false
	case r.err != nil:
		return "tdmrep.json: " + r.err.Error(), 0, true
	case r.page != nil && (r.page.Status == http.StatusTooManyRequests || r.page.Status >= 500):
		return fmt.Sprintf("tdmrep.json: HTTP %d", r.page.Status), robotscache.RetryAfter(r.page.Header.Get("Retry-After"), now), true
	}
	return "", 0, false
}

// applyTDMRep makes a tdmrep.json answer its origin's when it came back
// (a failure is recorded instead): the origin's next page may be
// dispatched at once. It is written down when the result is recorded
// (Sites.Save). A request a stop cut short is asked for again later.
func (c *siteRules) applyTDMRep(fetchCtx context.Context, r result) {
	origin := r.task.origin
	if r.interrupted || r.err != nil && cancelled(fetchCtx, r.err) {
		c.sites.Forget(origin)
		return
	}
	c.sites.Set(origin, r.tdm)
	log := c.log.With("host", r.task.host, "origin", origin)
	switch {
	case r.err != nil:
		log.Info("tdmrep.json unreachable; taken as absent", "error", r.err.Error())
	case r.tdm.Reason != "":
		log.Info("tdmrep.json unusable; taken as absent", "error", r.tdm.Reason)
	case r.tdm.Rep != nil:
		log.Info("tdmrep.json", "status", r.tdm.Status)
	}
}

// refuseUnchanged applies a 304's content-use signals to the record it
// confirms: its headers (and the site's robots.txt and tdmrep.json, as
// they are now) may refuse the declared purpose though the page did not
// change, and then the body stored at an earlier fetch goes, as it would
// for a 200. Without a refusal the record keeps the uses of its last full
// fetch (a 304 carries no meta tags).
func refuseUnchanged(tx *storage.Tx, rec *storage.URLRecord, r result) error {
	if r.refusal == nil {
		return nil
	}
	rec.ContentUse = contentuse.StoredUse(r.uses)
	rec.Title, rec.Error = "", notStoredReason(r.refusal)
	if err := tx.DeleteBody(rec.URL); err != nil {
		return fmt.Errorf("drop refused body of %s: %w", rec.URL, err)
	}
	return nil
}

// notStoredReason is why a response refused by its signals has no body
// anywhere: no request or response record, no body in the state file.
func notStoredReason(r *contentuse.Refusal) string {
	return r.String() + notStoredSuffix
}
