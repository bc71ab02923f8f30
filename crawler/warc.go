package crawler

import (
	"context"
	"fmt"
	"strings"

	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/storage"
)

// The crawler's side of WARC output (Config.Archive): workers write the
// records of each exchange they make as soon as it is over; the
// coordinator syncs the files before the transaction that records the
// results commits, and persists the digest index in that transaction.

// loadDigests gives the archive the digest index of the state file, so
// that payloads archived before a restart become revisits.
func loadDigests(db *storage.DB, a *archive.Writer) error {
	if a == nil {
		return nil
	}
	return db.View(func(tx *storage.Tx) error {
		return tx.ForEachDigest(func(d string, r storage.DigestRecord) error {
			a.Remember(archive.Capture{Digest: d, URI: r.URI, Date: r.Date, RecordID: r.RecordID})
			return nil
		})
	})
}

// startCapture makes the request made with the returned context record
// its raw exchange; nil when WARC output is off (for the task's host).
func (p *pool) startCapture(ctx context.Context, t task) (context.Context, *fetch.Capture) {
	if p.cfg.Archive == nil || t.noWARC {
		return ctx, nil
	}
	capt := fetch.NewCapture()
	return fetch.WithCapture(ctx, capt), capt
}

// archiveExchange writes the records of the exchange a worker just made:
// request and response (or revisit), and for a page a metadata record.
func (p *pool) archiveExchange(r *result, capt *fetch.Capture) {
	if capt == nil {
		return
	}
	req, resp, ip, cut := capt.Finish()
	if len(resp) == 0 {
		return // no answer: nothing to archive
	}
	t := r.task
	date := r.started
	if !r.sent.IsZero() {
		date = r.sent
	}
	ex := archive.Exchange{URL: t.url, Date: date, IP: ip, Request: req, Response: resp, Truncated: cut}
	if r.page != nil {
		// A type scope.accept_types refuses is cut after its headers.
		ex.Truncated = ex.Truncated || r.page.Truncated || r.page.Unaccepted
	}
	if t.kind == taskPage {
		if t.etag != "" || t.lastMod != "" {
			ex.Original = &archive.Capture{URI: t.url, Date: t.fetchedAt, Digest: t.payload}
		}
		if r.parsed != nil && r.parsed.Directives.NoArchive {
			ex.NoArchive = "the page's meta robots or X-Robots-Tag says noarchive: no request or response record"
		}
		if r.refusal != nil {
			ex.NoArchive = notStoredReason(r.refusal) + ": no request or response record"
		}
		ex.Metadata = append(pageMetadata(r), contentuse.Metadata(p.cfg.Purpose, r.uses, r.refusal)...)
	}
	w, err := p.cfg.Archive.Write(ex)
	r.archived, r.archiveErr = &w, err
}

// pageMetadata lists what the crawl made of a page: its decision, the
// robots directives seen, and the outlinks it found eligible to follow
// (those inside the scope and not seen before are queued).
func pageMetadata(r *result) []archive.Field {
	p := r.page
	var f []archive.Field
	add := func(name, value string) { f = append(f, archive.Field{Name: name, Value: value}) }
	switch {
	case p == nil:
		add("decision", "no response")
	case p.Status == 429 || p.Status >= 500:
		add("decision", fmt.Sprintf("retry later (HTTP %d); the host backs off", p.Status))
	case p.Status == 304 && r.refusal != nil:
		// The page did not change, but its signals now refuse the
		// declared purpose: the body stored at an earlier fetch goes
		// (see refuseUnchanged).
		add("decision", "not modified since the last fetch; "+notStoredReason(r.refusal)+": the body stored earlier is dropped")
	case p.Status == 304:
		add("decision", "not modified since the last fetch: record kept")
	case p.Location != "":
		add("decision", "redirect to "+p.Location+": followed as a URL of its own")
	case p.Truncated:
		add("decision", fmt.Sprintf("fetched, body truncated at %d bytes", len(p.Body)))
	default:
		add("decision", "fetched")
	}
	if r.parsed == nil {
		return f
	}
	d := r.parsed.Directives
	var seen []string
	for _, x := range []struct {
		on   bool
		name string
	}{{d.NoIndex, "noindex"}, {d.NoFollow, "nofollow"}, {d.NoArchive, "noarchive"}, {d.NoSnippet, "nosnippet"}} {
		if x.on {
			seen = append(seen, x.name)
		}
	}
	seen = append(seen, d.Other...)
	if len(seen) > 0 {
		add("robots", strings.Join(seen, ", "))
	}
	if d.NoIndex {
		add("noindex", "archived, but the page asks not to be indexed")
	}
	if r.parseErr != nil {
		add("parse-error", r.parseErr.Error())
	}
	if r.links != nil {
		for _, l := range r.links.URLs {
			add("outlink", l)
		}
	}
	return f
}

// rememberArchived persists the capture a result added to the digest
// index, in the transaction that records the result (record calls it).
func rememberArchived(tx *storage.Tx, r result) error {
	if r.archived == nil || r.archived.New == nil {
		return nil
	}
	n := r.archived.New
	return tx.PutDigest(n.Digest, storage.DigestRecord{URI: n.URI, Date: n.Date, RecordID: n.RecordID})
}
