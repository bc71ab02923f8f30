package archive

import (
	"bytes"
	"fmt"
	"net/http"
	"time"
)

// Capture identifies an archived response: what a revisit record refers to.
type Capture struct {
	Digest   string // payload digest, "sha1:…"
	URI      string
	Date     time.Time
	RecordID string // "<urn:uuid:…>"; may be empty for a server-not-modified original
}

// Exchange is one HTTP request and its response, as captured on the
// connection, with what the crawler made of it.
type Exchange struct {
	URL       string
	Date      time.Time // when the request was sent
	IP        string    // the server's address
	Request   []byte    // bytes written: request line, headers, body
	Response  []byte    // bytes read: status line, headers, body as sent
	Truncated bool      // Response stops short of the whole body (the fetch cap)
	// Original is the capture a conditional GET was revalidating; a 304
	// answer is written as a server-not-modified revisit referring to it,
	// with its Digest as the revisit's payload digest when set.
	Original *Capture
	// NoArchive, when set, is why the page must not be archived (a
	// noarchive directive): no request or response record is written and
	// the metadata record says this.
	NoArchive string
	// Metadata, when non-nil, becomes a metadata record concurrent to the
	// response: outlinks, robots directives, the crawl decision.
	Metadata []Field
}

// Written says what Write did with an Exchange.
type Written struct {
	File    string   // the file the records went to (its final name)
	Types   []string // WARC-Type of each record written, in order
	Revisit string   // the revisit profile, when the response was a revisit
	// New is set when the response's payload entered the digest index:
	// the caller persists it, and gives it back to Remember after a restart.
	New *Capture
	// Payload is the payload digest of the response when it came whole,
	// or for a server-not-modified revisit the original's digest (when
	// known): what the caller keeps to give as Original.Digest when it
	// revalidates the page.
	Payload string
}

// Write appends the records of one exchange to the open file, starting a
// new file first when needed. The records are not durable until Sync.
// Parsing, digests and compression run outside the Writer's lock: only
// the digest index lookup and the file write hold it.
func (w *Writer) Write(e Exchange) (Written, error) {
	var msg httpMessage
	var payload string
	respID := newID()
	if e.NoArchive == "" && len(e.Response) > 0 {
		msg = parseResponse(e.Response)
		payload = Digest(msg.payload)
	}
	orig, out, err := w.lookup(e, msg, payload, respID)
	if err != nil {
		return Written{}, err
	}
	recs := records(e, msg, payload, respID, orig)
	data := w.serialise(recs)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		w.bufs.Put(data)
		return Written{}, ErrClosed
	}
	if err := w.rotate(); err != nil {
		w.bufs.Put(data)
		return Written{}, err
	}
	if err := w.write(data, recs); err != nil {
		return Written{}, err
	}
	out.File = w.name
	for _, r := range recs {
		out.Types = append(out.Types, r.typ)
		if r.typ == TypeRevisit {
			out.Revisit = r.field("WARC-Profile")
		}
	}
	switch {
	case out.Revisit == ProfileNotModified:
		out.Payload = e.Original.Digest
	case msg.headLen > 0 && msg.complete && !e.Truncated:
		out.Payload = payload
	}
	return out, nil
}

// lookup consults the digest index for e's payload: it returns the first
// capture when the payload is known, and otherwise, for a whole,
// non-empty payload, enters this capture (out.New).
func (w *Writer) lookup(e Exchange, msg httpMessage, payload, respID string) (*Capture, Written, error) {
	var out Written
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, out, ErrClosed
	}
	dedup := payload != "" && len(msg.payload) > 0 && msg.complete && !e.Truncated &&
		!(msg.status == http.StatusNotModified && e.Original != nil)
	if !dedup {
		return nil, out, nil
	}
	if c, ok := w.digests[payload]; ok {
		return &c, out, nil
	}
	out.New = &Capture{Digest: payload, URI: e.URL, Date: e.Date.UTC(), RecordID: respID}
	w.digests[payload] = *out.New
	return nil, out, nil
}

// records builds the records of e: request, response or revisit (of orig,
// when the payload was archived before), metadata.
func records(e Exchange, msg httpMessage, payload, respID string, orig *Capture) []*record {
	var recs []*record
	date := e.Date.UTC()
	if e.NoArchive == "" && len(e.Response) > 0 {
		resp := response(e, msg, payload, respID, orig)
		req := &record{typ: TypeRequest, id: newID(), date: date, ctype: "application/http;msgtype=request", block: e.Request}
		req.add("WARC-Target-URI", e.URL)
		req.add("WARC-IP-Address", e.IP)
		req.add("WARC-Concurrent-To", respID)
		req.add("WARC-Block-Digest", Digest(e.Request))
		recs = append(recs, req, resp)
	} else {
		respID = ""
	}
	if e.Metadata != nil {
		var body bytes.Buffer
		for _, f := range e.Metadata {
			fmt.Fprintf(&body, "%s: %s\r\n", f.Name, f.Value)
		}
		if e.NoArchive != "" {
			fmt.Fprintf(&body, "noarchive: %s\r\n", e.NoArchive)
		}
		m := &record{typ: TypeMetadata, id: newID(), date: date, ctype: "application/warc-fields", block: body.Bytes()}
		m.add("WARC-Target-URI", e.URL)
		m.add("WARC-Concurrent-To", respID)
		m.add("WARC-Block-Digest", Digest(m.block))
		recs = append(recs, m)
	}
	return recs
}

// response builds the response record, or a revisit when the answer is a
// 304 to a conditional GET or its payload was archived before (orig).
func response(e Exchange, msg httpMessage, payload, id string, orig *Capture) *record {
	r := &record{typ: TypeResponse, id: id, date: e.Date.UTC(), ctype: "application/http;msgtype=response", block: e.Response}
	r.add("WARC-Target-URI", e.URL)
	r.add("WARC-IP-Address", e.IP)
	switch {
	case msg.status == http.StatusNotModified && e.Original != nil:
		r.typ, r.block = TypeRevisit, e.Response[:msg.headLen]
		r.add("WARC-Profile", ProfileNotModified)
		r.add("WARC-Refers-To", e.Original.RecordID)
		r.add("WARC-Refers-To-Target-URI", e.Original.URI)
		if !e.Original.Date.IsZero() {
			r.add("WARC-Refers-To-Date", warcDate(e.Original.Date))
		}
		// The content is the original's (WARC 1.1 section 6.7.3: its
		// payload digest where known).
		r.add("WARC-Payload-Digest", e.Original.Digest)
	case orig != nil:
		// The headers only: the payload is in the original's record.
		r.typ, r.block = TypeRevisit, e.Response[:msg.headLen]
		r.add("WARC-Profile", ProfileIdenticalPayload)
		r.add("WARC-Refers-To", orig.RecordID)
		r.add("WARC-Refers-To-Target-URI", orig.URI)
		r.add("WARC-Refers-To-Date", warcDate(orig.Date))
		r.add("WARC-Payload-Digest", payload)
		r.add("WARC-Truncated", "length")
	default:
		if msg.headLen > 0 {
			r.add("WARC-Payload-Digest", payload)
		}
		if e.Truncated || !msg.complete {
			r.add("WARC-Truncated", "length")
		}
	}
	r.add("WARC-Block-Digest", Digest(r.block))
	r.index = indexLine(r, msg)
	return r
}
