package archive

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// httpMessage is what the archive needs to know of a raw HTTP response.
type httpMessage struct {
	status  int
	header  http.Header
	headLen int    // bytes of status line and headers, blank line included
	payload []byte // the entity body: chunk framing removed, Content-Encoding kept
	// complete is false when the body evidently stops short: fewer bytes
	// than Content-Length, or chunks without the last one.
	complete bool
}

// parseResponse reads the status line and headers of a raw response and
// finds its payload. It never fails: what cannot be parsed is left at its
// zero value, and a body whose chunk framing is broken (as when it was
// truncated) is taken as it is after the last whole chunk.
func parseResponse(raw []byte) httpMessage {
	var m httpMessage
	end := headerEnd(raw)
	if end < 0 {
		return m
	}
	m.headLen = end
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw[:end])))
	line, err := tp.ReadLine()
	if err != nil {
		return m
	}
	if _, rest, ok := strings.Cut(line, " "); ok {
		code, _, _ := strings.Cut(rest, " ")
		m.status, _ = strconv.Atoi(code)
	}
	h, _ := tp.ReadMIMEHeader()
	m.header = http.Header(h)
	body := raw[end:]
	noBody := m.status/100 == 1 || m.status == http.StatusNoContent || m.status == http.StatusNotModified
	switch {
	case noBody:
		m.payload, m.complete = body, true
	case isChunked(m.header):
		m.payload, m.complete = dechunk(body)
	default:
		m.payload, m.complete = body, true
		if n, err := strconv.ParseInt(m.header.Get("Content-Length"), 10, 64); err == nil && int64(len(body)) < n {
			m.complete = false
		}
	}
	return m
}

// headerEnd returns the offset just past the blank line that ends the
// header section, or -1. Bare LF line ends are accepted, as HTTP clients do.
func headerEnd(raw []byte) int {
	crlf := bytes.Index(raw, []byte("\r\n\r\n"))
	lf := bytes.Index(raw, []byte("\n\n"))
	switch {
	case crlf >= 0 && (lf < 0 || crlf+2 <= lf):
		return crlf + 4
	case lf >= 0:
		return lf + 2
	}
	return -1
}

func isChunked(h http.Header) bool {
	for _, v := range h.Values("Transfer-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(c), "chunked") {
				return true
			}
		}
	}
	return false
}

// dechunk removes the chunked transfer coding; it stops at the last chunk
// (complete) or at the first malformed or cut one (keeping the data before
// it).
func dechunk(body []byte) (payload []byte, complete bool) {
	r := bufio.NewReader(bytes.NewReader(body))
	var out bytes.Buffer
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return out.Bytes(), false
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseUint(strings.TrimSpace(size), 16, 63)
		if err != nil {
			return out.Bytes(), false
		}
		if n == 0 {
			return out.Bytes(), true
		}
		if _, err := io.CopyN(&out, r, int64(n)); err != nil {
			return out.Bytes(), false
		}
		if _, err := r.ReadString('\n'); err != nil {
			return out.Bytes(), false
		}
	}
}
