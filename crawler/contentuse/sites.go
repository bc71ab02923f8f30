package contentuse

import (
	"fmt"

	"github.com/politecrawl/politecrawl/crawler/fetch"
)

// Sites holds what each origin's /.well-known/tdmrep.json said during this
// run: the one content-use file a site publishes besides robots.txt.
// Whether to ask for it, and when, is the crawl's business; Sites only
// remembers the answers, and how many times in a row the server failed
// to give one. It keeps one small entry per origin asked about (as the
// robots.txt cache does) and is not persisted: a resumed crawl asks again,
// one request per origin. The zero value is not usable: see NewSites. Not
// safe for concurrent use: the crawl's coordinator owns it.
type Sites struct {
	origins map[string]*site
}

// site is one origin's file as the crawl knows it.
type site struct {
	rep      *TDMRep // nil: no usable file (none, broken, or not known yet)
	asking   bool    // a request for it is under way
	answered bool    // an answer (or the end of the tries) decides: not asked again
	failures int     // consecutive requests the server failed (5xx, 429, network)
}

// Answer is what a tdmrep.json request got. One that decides the
// origin's file goes to Set; a failure the server may get over (a 429 or
// 5xx status, a network error) to Failed, which the crawl tells apart.
type Answer struct {
	Rep    *TDMRep // the file, nil when there is none or it is broken
	Status int     // HTTP status; 0 when no answer came
	Reason string  // why a 2xx answer says nothing (broken, truncated)
}

// ReadTDMRep reads the answer to a tdmrep.json request: resp, or the
// request's error err. Anything but a 2xx answer with a valid, whole file
// is no file: redirects are not followed, and a broken file states
// nothing (the pages' own headers and meta tags still count).
func ReadTDMRep(resp *fetch.Response, err error) Answer {
	var a Answer
	if err != nil {
		return a
	}
	a.Status = resp.Status
	switch {
	case resp.Status < 200 || resp.Status >= 300:
	case resp.Truncated:
		a.Reason = fmt.Sprintf("tdmrep.json: truncated at %d bytes", len(resp.Body))
	default:
		if a.Rep, err = ParseTDMRep(resp.Body); err != nil {
			a.Reason = err.Error()
		}
	}
	return a
}

// NewSites returns an empty Sites.
func NewSites() *Sites { return &Sites{origins: map[string]*site{}} }

func (s *Sites) entry(origin string) *site {
	e := s.origins[origin]
	if e == nil {
		e = &site{}
		s.origins[origin] = e
	}
	return e
}

// Ask reports whether origin's tdmrep.json is still to be requested, and
// if so marks it requested.
func (s *Sites) Ask(origin string) bool {
	e := s.entry(origin)
	if e.asking || e.answered {
		return false
	}
	e.asking = true
	return true
}

// Set makes a the answer for origin's file: the origin states nothing by
// this means when a.Rep is nil (absent, a redirect, an error status other
// than 429 and 5xx, bad JSON, too big).
func (s *Sites) Set(origin string, a Answer) {
	e := s.entry(origin)
	e.rep, e.asking, e.answered, e.failures = a.Rep, false, true, 0
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
// absent for the rest of the run, so a server that always fails on it
// (some answer 5xx for any unknown path) costs tries requests and does
// not hold its pages for good; the pages' own headers and meta tags
// still count.
func (s *Sites) Failed(origin string, tries int) (again bool) {
	e := s.entry(origin)
	e.asking = false
	e.failures++
	if e.failures < tries {
		return true
	}
	e.answered, e.failures = true, 0
	return false
}

// Forget makes origin's file to be asked for again (its request was cut
// short by a stop).
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
