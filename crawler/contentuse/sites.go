package contentuse

import (
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/storage"
)

// Sites holds what each origin's /.well-known/tdmrep.json said: the one
// content-use file a site publishes besides robots.txt. Whether to ask
// for it, and when, is the crawl's business; Sites remembers the answers
// and how long each decides, and how many times in a row the server
// failed to give one. It keeps one small entry per origin asked about (as
// the robots.txt cache does): the parsed file and until when it decides.
// The record the state file keeps of an answer (Record) is held only from
// the answer until Save writes it, so a resumed crawl does not ask again
// while the answer is fresh (Restore) without every file's body staying
// in memory for the whole run.
//
// An answer decides for the TTL given to NewSites, or its shorter
// Cache-Control max-age: robots.txt's rule (SPEC 1.3), which the crawl
// follows for this file too, having none of its own. When it is stale the
// file is asked for again before the origin's next page; until a new
// answer comes, the old one stands.
//
// The zero value is not usable: see NewSites. Not safe for concurrent
// use: the crawl's coordinator owns it.
type Sites struct {
	ttl     time.Duration
	origins map[string]*site
}

// site is one origin's file as the crawl knows it.
type site struct {
	rep      *TDMRep   // nil: no usable file (none, broken, or not known yet)
	expires  time.Time // ask again from then (zero: never answered)
	asking   bool      // a request for it is under way
	failures int       // consecutive requests the server failed (5xx, 429, network)
	// rec is the last answer as the state file is to keep it, until
	// Save wrote it; nil when there is none to write (no answer yet,
	// none from the server, or written already).
	rec *storage.TDMRepRecord
}

// Answer is what a tdmrep.json request got. One that decides the
// origin's file goes to Set; a failure the server may get over (a 429 or
// 5xx status, a network error) to Failed, which the crawl tells apart.
type Answer struct {
	Rep    *TDMRep       // the file, nil when there is none or it is broken
	Body   []byte        // the file as read, when Rep is set
	Status int           // HTTP status; 0 when no answer came
	Reason string        // why a 2xx answer says nothing (broken, truncated)
	At     time.Time     // when the request was made
	MaxAge time.Duration // the answer's Cache-Control max-age, 0 if none
}

// ReadTDMRep reads the answer to a tdmrep.json request made at at: resp,
// or the request's error err. Anything but a 2xx answer with a valid,
// whole file is no file: redirects are not followed, and a broken file
// states nothing (the pages' own headers and meta tags still count).
func ReadTDMRep(resp *fetch.Response, err error, at time.Time) Answer {
	a := Answer{At: at}
	if err != nil {
		return a
	}
	a.Status, a.MaxAge = resp.Status, robotscache.MaxAge(resp.Header.Get("Cache-Control"))
	switch {
	case resp.Status < 200 || resp.Status >= 300:
	case resp.Truncated:
		a.Reason = fmt.Sprintf("tdmrep.json: truncated at %d bytes", len(resp.Body))
	default:
		if a.Rep, err = ParseTDMRep(resp.Body); err != nil {
			a.Reason = err.Error()
		} else {
			a.Body = resp.Body // the crawl's worker drops resp.Body
		}
	}
	return a
}

// Outcome names a for the crawl's metrics: "found" (a usable file),
// "unusable" (a 2xx answer that is none: broken, truncated), "absent"
// (any other answer: none, a redirect, a 403), or "error" (no answer, or
// a 429 or 5xx: a failure the server may get over, which the crawl asks
// again after).
func (a Answer) Outcome() string {
	switch {
	case a.Status == 0 || a.Status == http.StatusTooManyRequests || a.Status >= 500:
		return "error"
	case a.Rep != nil:
		return "found"
	case a.Reason != "":
		return "unusable"
	}
	return "absent"
}

// NewSites returns an empty Sites whose answers decide for ttl (or a
// shorter max-age).
func NewSites(ttl time.Duration) *Sites {
	return &Sites{ttl: ttl, origins: map[string]*site{}}
}

func (s *Sites) entry(origin string) *site {
	e := s.origins[origin]
	if e == nil {
		e = &site{}
		s.origins[origin] = e
	}
	return e
}

// Ask reports whether origin's tdmrep.json is to be requested at now (no
// fresh answer, and no request under way), and if so marks it requested.
func (s *Sites) Ask(origin string, now time.Time) bool {
	e := s.entry(origin)
	if e.asking || now.Before(e.expires) {
		return false
	}
	e.asking = true
	return true
}

// Set makes a an answer for origin's file: the origin states nothing by
// this means when a.Rep is nil (absent, a redirect, an error status other
// than 429 and 5xx, bad JSON, too big). It decides from a.At for the TTL
// or the answer's shorter max-age.
func (s *Sites) Set(origin string, a Answer) {
	e := s.entry(origin)
	ttl := s.ttl
	if a.MaxAge > 0 && a.MaxAge < ttl {
		ttl = a.MaxAge
	}
	e.rep, e.asking, e.failures = a.Rep, false, 0
	e.expires = a.At.Add(ttl)
	e.rec = nil
	if a.Status != 0 {
		// Only the server's own answers are kept: a request our side
		// refused, or to a name that does not exist, is asked again by
		// the next run.
		e.rec = &storage.TDMRepRecord{FetchedAt: a.At, ExpiresAt: e.expires, Status: a.Status, Error: a.Reason}
		if a.Rep != nil {
			e.rec.Body = a.Body
		}
	}
}

// Failed records that the server failed to answer for origin's file (a
// 429 or 5xx, a network error or timeout: what makes a page's host back
// off) and reports whether the file is to be asked for again, as a page
// would be, once the host's backoff is over: up to tries requests in a row.
//
// Asking again, rather than taking the file as absent at once, is the
// cautious reading of a server that is only struggling: the file exists
// to reserve uses, and the origin's pages wait behind it (they would
// wait for the backoff anyway), so none is fetched under a reservation
// the crawl could not read. After tries failures the file is taken as
// absent (or as its last answer said, if there was one) until now plus
// the TTL, so a server that always fails on it (some answer 5xx for any
// unknown path) costs tries requests and does not hold its pages for
// good; the pages' own headers and meta tags still count. Nothing of a
// failure is kept in the state file: the next run asks again.
func (s *Sites) Failed(origin string, tries int, now time.Time) (again bool) {
	e := s.entry(origin)
	e.asking = false
	e.failures++
	if e.failures < tries {
		return true
	}
	e.failures = 0
	e.expires = now.Add(s.ttl)
	return false
}

// Forget makes origin's file to be asked for again (its request was cut
// short by a stop); what an earlier answer said stands meanwhile.
func (s *Sites) Forget(origin string) {
	if e := s.origins[origin]; e != nil {
		e.asking = false
	}
}

// Statement is what origin's file says of path (see TDMRep.Statement).
func (s *Sites) Statement(origin, path string) Statement {
	e := s.origins[origin]
	if e == nil {
		return Statement{}
	}
	return e.rep.Statement(path)
}

// Record is what the state file is to keep of origin's last answer, nil
// when there is nothing to write (or Save wrote it already).
func (s *Sites) Record(origin string) *storage.TDMRepRecord {
	if e := s.origins[origin]; e != nil {
		return e.rec
	}
	return nil
}

// Save writes down origin's last answer, when there is one to keep.
func (s *Sites) Save(tx *storage.Tx, origin string) error {
	rec := s.Record(origin)
	if rec == nil {
		return nil
	}
	if err := tx.PutTDMRep(origin, rec); err != nil {
		return fmt.Errorf("record tdmrep.json of %s: %w", origin, err)
	}
	// Written: the body need not stay in memory. A batch that fails to
	// commit stops the crawl, and the next run asks for the file again.
	s.origins[origin].rec = nil
	return nil
}

// Load puts back every origin's last answer from the state file (at
// start; see Restore). A nil Sites, that of a crawl with no declared
// purpose (which never asks for the file), loads nothing.
func (s *Sites) Load(tx *storage.Tx) error {
	if s == nil {
		return nil
	}
	return tx.ForEachTDMRep(func(origin string, r *storage.TDMRepRecord) error {
		s.Restore(origin, r)
		return nil
	})
}

// Restore puts back origin's last answer from the state file (at start):
// it decides until r.ExpiresAt, and stands after that until a new answer
// comes. A body that no longer parses states nothing.
func (s *Sites) Restore(origin string, r *storage.TDMRepRecord) {
	e := s.entry(origin)
	e.rec, e.expires, e.rep = nil, r.ExpiresAt, nil // r is in the state file already
	if len(r.Body) > 0 {
		e.rep, _ = ParseTDMRep(r.Body)
	}
}
