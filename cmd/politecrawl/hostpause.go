package main

import (
	"context"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
)

// clientHeader names the politecrawl command behind a request to the
// running crawl's API (`host pause` sends "cli"), so its log says who
// asked; any other request is the operator's own HTTP call.
const clientHeader = "X-Politecrawl-Client"

// handleHostPause adds POST /hosts/{host}/pause and POST
// /hosts/{host}/resume: the operator's pause of one host (see
// crawler.PauseHost). Over http.listen they need http.token when it is
// set (requireToken), as every change does. Each pause or resume of a
// host the crawl knows is one line through notice: the host, by (cli for
// `politecrawl host`, http otherwise) and from (the client's address, or
// the control socket).
func handleHostPause(mux *http.ServeMux, c *crawler.Crawler, notice func(msg string, args ...any)) {
	for _, action := range []string{"pause", "resume"} {
		pause := action == "pause"
		mux.HandleFunc("POST /hosts/{host}/"+action, func(w http.ResponseWriter, r *http.Request) {
			host := r.PathValue("host")
			ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
			defer cancel()
			known, err := c.PauseHost(ctx, host, pause, func() {
				notice(pauseMessage(pause), "host", host, "by", requester(r), "from", remote(r))
			})
			switch {
			case err != nil:
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			case !known:
				writeJSON(w, http.StatusNotFound, map[string]string{"error": "the crawl does not know host " + host})
			default:
				writeJSON(w, http.StatusOK, map[string]any{"host": host, "paused": pause})
			}
		})
	}
}

// pauseMessage is the log message of a pause (true) or a resume.
func pauseMessage(pause bool) string {
	if pause {
		return "host paused"
	}
	return "host resumed"
}

// requester is who sent r: "cli" for a politecrawl command, "http" for
// anything else.
func requester(r *http.Request) string {
	if r.Header.Get(clientHeader) == "cli" {
		return "cli"
	}
	return "http"
}

// remote is where r came from: the client's address, or the control
// socket (whose clients have none).
func remote(r *http.Request) string {
	if r.RemoteAddr == "" || r.RemoteAddr == "@" {
		return "control socket"
	}
	return r.RemoteAddr
}
