package cluster

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/cluster/natstest"
)

func TestEmbeddedKeepsDataAcrossRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crawl.db")
	store := StoreDirFor(dir)
	if store != dir+".nats" {
		t.Errorf("StoreDirFor(%q) = %q", dir, store)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var rev uint64
	for run := range 2 {
		srv, err := StartEmbedded(ctx, Options{Listen: "127.0.0.1:0", StoreDir: store})
		if err != nil {
			t.Fatal(err)
		}
		nc, js := MustJetStream(t, srv.ClientURL())
		kv, err := openBucket(ctx, js, "restart", "d", time.Minute, 1)
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			if rev, err = kv.Create(ctx, "k", []byte("v")); err != nil {
				t.Fatal(err)
			}
		} else if e, err := kv.Get(ctx, "k"); err != nil || e.Revision() != rev {
			t.Errorf("after restart: Get = %v, %v; want revision %d", e, err, rev)
		}
		nc.Close()
		srv.Close()
		srv.Close() // idempotent
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("store directory: %v", err)
	}
}

func TestStartEmbeddedErrors(t *testing.T) {
	ctx := context.Background()
	for _, o := range []Options{
		{Listen: "127.0.0.1:0"},                        // no store
		{Listen: "127.0.0.1", StoreDir: t.TempDir()},   // no port
		{Listen: "127.0.0.1:x", StoreDir: t.TempDir()}, // bad port
	} {
		if srv, err := StartEmbedded(ctx, o); err == nil {
			srv.Close()
			t.Errorf("StartEmbedded(%+v) succeeded", o)
		}
	}
}

// TestNodeSaysWhenNATSIsLost: a node's log says once when its NATS server
// goes away and once when it is back (before, only failing heartbeats
// showed it, every 0.75 s).
func TestNodeSaysWhenNATSIsLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := Options{Listen: fmt.Sprintf("127.0.0.1:%d", natstest.FreePorts(t, 1)[0]), StoreDir: t.TempDir()}
	srv, err := StartEmbedded(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	log, logs := captureLog(slog.LevelInfo)
	said := func(s string) func() bool {
		return func() bool { return strings.Count(logs(), s) == 1 }
	}
	n, err := DialNode(ctx, Config{NATS: srv.ClientURL(), Name: "lost", Node: "a", Shards: 4, LeaseTTL: testTTL}, NodeOptions{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer n.nc.Close()
	srv.Close()
	waitUntil(t, ctx, "the loss said", said("lost the NATS server"))
	if srv, err = StartEmbedded(ctx, opts); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	waitUntil(t, ctx, "the return said", said("NATS server back"))
	// The node's own close is no loss (nats.go calls the same handler,
	// from its callback goroutine: given half a second to).
	n.nc.Close()
	time.Sleep(500 * time.Millisecond)
	if !said("lost the NATS server")() {
		t.Errorf("the loss said more than once, or at the node's own close:\n%s", logs())
	}
}

// captureLog is a logger at level whose lines logs returns, safe to use
// from the node's goroutines.
func captureLog(level slog.Level) (log *slog.Logger, logs func() string) {
	var mu sync.Mutex
	var buf bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// waitUntil polls cond every 10 ms until it holds or ctx ends.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatalf("%s: not within the test's time", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEmbeddedStartsQuietly: at the default log level an embedded
// server's start is one line (it was some 25 of the server's banner and
// settings); the server's own lines are there at debug level.
func TestEmbeddedStartsQuietly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		log, logs := captureLog(level)
		srv, err := StartEmbedded(ctx, Options{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		out := logs()
		i := strings.Index(out, "embedded NATS server ready")
		if i < 0 {
			t.Fatalf("no line says the server is ready:\n%s", out)
		}
		start := out[:i+1]
		lines := strings.Count(start, "\n") + 1
		if level == slog.LevelInfo && lines != 1 {
			t.Errorf("at info level, the start took %d lines, want 1:\n%s", lines, start)
		}
		if level == slog.LevelDebug && !strings.Contains(start, "Starting nats-server") {
			t.Errorf("at debug level, the server's own start lines are missing:\n%s", start)
		}
	}
}

// TestNodeWaitsForItsServer: a node started before its NATS server (as
// when nodes start together with the one embedding it) waits for the
// server rather than failing at once; a client (status, seed) does not
// wait, and neither does a node once its start's context ends.
func TestNodeWaitsForItsServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := Options{Listen: fmt.Sprintf("127.0.0.1:%d", natstest.FreePorts(t, 1)[0]), StoreDir: t.TempDir()}
	cfg := Config{NATS: "nats://" + opts.Listen, Name: "late", Node: "a", Shards: 4, LeaseTTL: testTTL}
	if _, err := DialClient(ctx, cfg); err == nil {
		t.Fatal("a client connected to no server")
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := DialNode(short, cfg, NodeOptions{Logger: slog.New(slog.DiscardHandler)})
	cancelShort()
	if err == nil || !strings.Contains(err.Error(), "no NATS server answered") {
		t.Fatalf("a node with no server by the end of its start: %v, want no NATS server answered", err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		srv, err := StartEmbedded(ctx, opts)
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(srv.Close)
	}()
	start := time.Now()
	log, logs := captureLog(slog.LevelInfo)
	n, err := DialNode(ctx, cfg, NodeOptions{Logger: log})
	if err != nil {
		t.Fatalf("a node whose server came 0.5 s after it: %v", err)
	}
	defer n.nc.Close()
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("connected after %v, before the server started", d)
	}
	for _, line := range []string{"waiting for it", `msg="cluster: NATS server answers"`} {
		if c := strings.Count(logs(), line); c != 1 {
			t.Errorf("%q said %d times, want once:\n%s", line, c, logs())
		}
	}
}

// TestManagerQuietWhileNATSIsLost: while its server is gone, a node's
// lease manager does not warn at every heartbeat (every 0.375 s with a 2 s
// TTL): the node said once that the server is lost. Its shards are still
// given up as their leases run out.
func TestManagerQuietWhileNATSIsLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := StartEmbedded(ctx, Options{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, js := MustJetStream(t, srv.ClientURL())
	log, logs := captureLog(slog.LevelInfo)
	cfg := Config{NATS: srv.ClientURL(), Name: "quiet", Node: "a", Shards: 4, LeaseTTL: testTTL}
	m, err := NewManager(ctx, js, cfg, ManagerOptions{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(mctx) }()
	waitOwned(t, m, 4, 10*time.Second)
	srv.Close()
	waitOwned(t, m, 0, 10*time.Second)
	time.Sleep(testTTL / 2) // several heartbeats with no server
	stop()
	<-done
	if n := strings.Count(logs(), "level=WARN"); n > 2 {
		t.Errorf("%d warnings while the server was gone, want at most 2 (the first failures, before the client notices):\n%s", n, logs())
	}
}
