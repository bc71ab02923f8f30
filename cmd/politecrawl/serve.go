package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/console"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// maxSeedBody bounds a POST /seeds body.
const maxSeedBody = 1 << 20

// SeedRequest is the body of POST /seeds.
type SeedRequest struct {
	URLs []string `json:"urls"`
}

// SeedResponse is what POST /seeds answers.
type SeedResponse struct {
	Queued  int                  `json:"queued"`
	Results []crawler.SeedResult `json:"results"`
}

// newAPI is the daemon's HTTP surface; notice logs the changes it makes
// that the crawl does not log itself (a host paused or resumed).
func newAPI(c *crawler.Crawler, db *storage.DB, gatherer prometheus.Gatherer, notice func(msg string, args ...any)) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		st, err := c.Status(ctx)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, st)
	})
	console.New(c, console.Options{}).Register(mux) // GET /, /hosts, /hosts/{host}
	handleHostPause(mux, c, notice)                 // POST /hosts/{host}/pause, /resume
	mux.HandleFunc("GET /export", serveExport(db))
	mux.HandleFunc("GET /why", serveWhy(c))
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("POST /seeds", func(w http.ResponseWriter, r *http.Request) {
		var req SeedRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, maxSeedBody))
		if err := dec.Decode(&req); err != nil || len(req.URLs) == 0 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": `want a JSON body {"urls": ["https://..."]}`})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		res, err := c.AddSeeds(ctx, req.URLs)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			return
		}
		out := SeedResponse{Results: res}
		for _, r := range res {
			if r.Outcome == "queued" {
				out.Queued++
			}
		}
		writeJSON(w, http.StatusOK, out)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// serveAPI listens on addr and serves until stop is called, which shuts
// the server down gracefully and waits for it.
func serveAPI(addr string, h http.Handler, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http.listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http endpoint", "error", err)
		}
	}()
	log.Info("http endpoint listening", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}, nil
}

// daemonClient talks to a running crawl's endpoint.
var daemonClient = &http.Client{Timeout: 10 * time.Second}
