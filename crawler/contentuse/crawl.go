package contentuse

import (
	"strings"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/extract"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/storage"
)

// What the crawl does with a response's signals: combine them with its
// site's (ResponseUse), keep them in the URL's record (StoredUse) and in
// the WARC metadata record (Metadata).

// ResponseUse combines a response's content-use signals with its URL's
// robots.txt ones (fromRobots, read at dispatch), and says whether the
// declared purpose may store it. Statements are ordered by where they
// come from, so the source a use shows is the first that decided it.
//
// When no statement says anything (most responses) it returns nil, which
// reads as every use unspecified, as Combine's answer would: building
// that answer, a map of every known use, for every page was a fifth of
// this function's cost in a crawl. Statements that say nothing are left
// out before combining, which changes no answer (they decide no use).
func ResponseUse(purpose, agent string, fromRobots []Statement, resp *fetch.Response, page *extract.Page) (Uses, *Refusal) {
	var buf [8]Statement // the robots.txt ones and up to five here, without an allocation
	stmts := buf[:0]
	for _, s := range fromRobots {
		stmts = appendSaid(stmts, s)
	}
	h := resp.Header
	if v := h.Values("Content-Usage"); len(v) > 0 {
		// Field lines of a structured field combine with commas (RFC 9651 4.2).
		stmts = appendSaid(stmts, ParseContentUsage(strings.Join(v, ", "), "header Content-Usage"))
	}
	stmts = appendSaid(stmts, ParseTDM(h.Get("Tdm-Reservation"), h.Get("Tdm-Policy"), "header tdm-reservation"))
	stmts = appendSaid(stmts, FromDirectives(extract.Header(h, agent).Other, "header X-Robots-Tag"))
	if page != nil {
		stmts = appendSaid(stmts, ParseTDM(page.TDM.Reservation, page.TDM.Policy, "meta tdm-reservation"))
		stmts = appendSaid(stmts, FromDirectives(page.Directives.Other, "meta robots"))
	}
	if len(stmts) == 0 {
		return nil, nil
	}
	uses := Combine(stmts)
	image := strings.HasPrefix(strings.ToLower(resp.ContentType), "image/")
	if r, refused := uses.Refuses(purpose, image); refused {
		return uses, &r
	}
	return uses, nil
}

// appendSaid appends s to stmts unless it states nothing.
func appendSaid(stmts []Statement, s Statement) []Statement {
	if s.Empty() {
		return stmts
	}
	return append(stmts, s)
}

// StoredUse is uses as the URL's record keeps them: only the uses a signal
// spoke of (the export shows the other known uses as unspecified), so a
// page without signals costs its record nothing.
func StoredUse(uses Uses) map[string]storage.ContentUse {
	var out map[string]storage.ContentUse
	for name, u := range uses {
		if u.Value == Unspecified {
			continue
		}
		if out == nil {
			out = map[string]storage.ContentUse{}
		}
		out[name] = storage.ContentUse{Value: u.Value.String(), Source: u.Source}
	}
	return out
}

// Metadata is the WARC metadata record's part on content use: the
// declared purpose, each use a signal spoke of, and a refusal.
func Metadata(purpose string, uses Uses, refusal *Refusal) []archive.Field {
	var f []archive.Field
	if purpose != "" {
		f = append(f, archive.Field{Name: "purpose", Value: purpose})
	}
	for _, part := range strings.Split(uses.String(), "; ") {
		if part != "" {
			f = append(f, archive.Field{Name: "content-use", Value: part})
		}
	}
	if refusal != nil {
		f = append(f, archive.Field{Name: "content-use-refused", Value: refusal.String() + ": fetched, not stored"})
	}
	return f
}
