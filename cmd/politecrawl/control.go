package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// A running crawl holds its state file locked, so `status`, `export` and
// `seed` ask the crawl itself. Every `run` serves its API on a Unix socket
// beside the state file (mode 0600: only its user may connect), whether or
// not http.listen is set; http.listen is for other machines and
// Prometheus.

// maxSocketPath keeps socket paths under the kernel's sun_path limit (108
// bytes on Linux, 104 on BSDs).
const maxSocketPath = 100

// controlSocket is the Unix socket of the crawl running on a state file:
// "<state>.sock", or, when that path is too long for a socket, a name in
// the temporary directory derived from the state file's absolute path.
func controlSocket(state string) string {
	abs, err := filepath.Abs(state)
	if err != nil {
		abs = state
	}
	if p := abs + ".sock"; len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(os.TempDir(), "politecrawl-"+hex.EncodeToString(sum[:8])+".sock")
}

// serveSocket serves h on the control socket of state until stop is
// called. A socket left by a crashed run is replaced: the caller holds
// the state file's lock, so no other crawl can be using it.
func serveSocket(state string, h http.Handler, log *slog.Logger) (stop func(), err error) {
	path := controlSocket(state)
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("control socket", "error", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
		os.Remove(path)
	}, nil
}

// crawlAPI reaches the API of the crawl running on cfg.State: through its
// control socket, else through http.listen.
type crawlAPI struct {
	state, listen string
	token         string // http.token: sent to http.listen (the socket needs none)
	by            string // the command asking, sent as clientHeader when set (see handleHostPause)
}

// apiOf is the API of the crawl running on cfg's state file.
func apiOf(cfg *Config) crawlAPI {
	return crawlAPI{state: cfg.State, listen: cfg.HTTP.Listen, token: cfg.HTTP.Token}
}

func (a crawlAPI) clients() []struct {
	client *http.Client
	base   string
	token  string
} {
	sock := controlSocket(a.state)
	unix := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}
	out := []struct {
		client *http.Client
		base   string
		token  string
	}{{unix, "http://politecrawl", ""}}
	if a.listen != "" {
		out = append(out, struct {
			client *http.Client
			base   string
			token  string
		}{daemonClient, "http://" + a.listen, a.token})
	}
	return out
}

// do sends a request to the running crawl and returns its response, from
// the first way of reaching it that answers.
func (a crawlAPI) do(method, path, contentType string, body []byte) (*http.Response, error) {
	var errs []error
	for _, c := range a.clients() {
		req, err := http.NewRequest(method, c.base+path, bytesReader(body))
		if err != nil {
			return nil, err
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if a.by != "" {
			req.Header.Set(clientHeader, a.by)
		}
		resp, err := c.client.Do(req)
		if err == nil {
			return resp, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("a crawl is running on %s but did not answer on %s%s: %w", a.state, controlSocket(a.state),
		map[bool]string{true: " nor " + a.listen, false: ""}[a.listen != ""], errors.Join(errs...))
}

func bytesReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}
