package contentuse

// Sites holds what each origin's /.well-known/tdmrep.json said during this
// run: the one content-use file a site publishes besides robots.txt.
// Whether to ask for it, and when, is the crawl's business; Sites only
// remembers the answers. It keeps one small entry per origin asked about
// (as the robots.txt cache does) and is not persisted: a resumed crawl
// asks again, one request per origin. The zero value is not usable: see
// NewSites. Not safe for concurrent use: the crawl's coordinator owns it.
type Sites struct {
	origins map[string]*TDMRep // nil value: asked, and no usable file (yet)
}

// NewSites returns an empty Sites.
func NewSites() *Sites { return &Sites{origins: map[string]*TDMRep{}} }

// Ask reports whether origin's tdmrep.json is still to be requested, and
// if so marks it requested.
func (s *Sites) Ask(origin string) bool {
	if _, asked := s.origins[origin]; asked {
		return false
	}
	s.origins[origin] = nil
	return true
}

// Set records origin's file; nil when there is none or it is broken
// (absent, a redirect, an error status, bad JSON, too big): the origin
// then states nothing by this means.
func (s *Sites) Set(origin string, rep *TDMRep) { s.origins[origin] = rep }

// Forget makes origin's file to be asked for again (its request was cut
// short by a stop).
func (s *Sites) Forget(origin string) { delete(s.origins, origin) }

// Statement is what origin's file says of path (see TDMRep.Statement).
func (s *Sites) Statement(origin, path string) Statement {
	return s.origins[origin].Statement(path)
}
