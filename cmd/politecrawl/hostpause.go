package main

import (
	"context"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
)

// handleHostPause adds POST /hosts/{host}/pause and POST
// /hosts/{host}/resume: the operator's pause of one host (see
// crawler.PauseHost). Over http.listen they need http.token when it is
// set (requireToken), as every change does.
func handleHostPause(mux *http.ServeMux, c *crawler.Crawler) {
	for _, action := range []string{"pause", "resume"} {
		pause := action == "pause"
		mux.HandleFunc("POST /hosts/{host}/"+action, func(w http.ResponseWriter, r *http.Request) {
			host := r.PathValue("host")
			ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
			defer cancel()
			known, err := c.PauseHost(ctx, host, pause)
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
