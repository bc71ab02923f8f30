package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configure an embedded NATS server.
type Options struct {
	// Listen is the client address, host:port (cluster.embed). Port 0 or -1
	// picks a free port (tests); ClientURL tells which.
	Listen string
	// StoreDir holds JetStream's files; StoreDirFor derives it from the
	// state file. Required.
	StoreDir string
	// ServerName names the server in logs and JetStream (default: "politecrawl-" + port).
	ServerName string
	// Logger receives the server's log (default: none).
	Logger *slog.Logger
}

// StoreDirFor is where the embedded server of the crawl whose state file is
// statePath keeps its JetStream data: a directory beside the state file.
func StoreDirFor(statePath string) string { return statePath + ".nats" }

// EmbeddedServer is a NATS server with JetStream running inside this process,
// for one-machine clusters and tests; the other nodes point cluster.nats at
// it. Close stops it.
type EmbeddedServer struct {
	srv       *server.Server
	closeOnce sync.Once
}

// StartEmbedded starts a NATS server with JetStream and waits until it
// accepts clients, or until ctx ends.
func StartEmbedded(ctx context.Context, o Options) (*EmbeddedServer, error) {
	if o.StoreDir == "" {
		return nil, errors.New("embedded nats server: no store directory")
	}
	host, portStr, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, fmt.Errorf("embedded nats server: listen %q: %w", o.Listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < -1 || port > 65535 {
		return nil, fmt.Errorf("embedded nats server: listen %q: bad port", o.Listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	name := o.ServerName
	if name == "" {
		name = "politecrawl-" + portStr
	}
	srv, err := server.NewServer(&server.Options{
		ServerName: name,
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		NoSigs:     true, // the process's signals belong to politecrawl
		NoLog:      o.Logger == nil,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded nats server: %w", err)
	}
	starting := new(atomic.Bool)
	starting.Store(true)
	if o.Logger != nil {
		srv.SetLoggerV2(serverLog{o.Logger.With("component", "nats-server"), starting}, false, false, false)
	}
	srv.Start()
	e := &EmbeddedServer{srv: srv}
	if err := e.waitReady(ctx); err != nil {
		e.Close()
		return nil, err
	}
	starting.Store(false)
	if o.Logger != nil {
		o.Logger.Info("embedded NATS server ready", "url", e.ClientURL(), "store", o.StoreDir)
	}
	return e, nil
}

// waitReady polls until the server takes clients and JetStream is on.
func (e *EmbeddedServer) waitReady(ctx context.Context) error {
	for {
		if e.srv.ReadyForConnections(100*time.Millisecond) && e.srv.JetStreamEnabled() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("embedded nats server not ready: %w", ctx.Err())
		default:
		}
	}
}

// ClientURL is the nats:// URL clients connect to.
func (e *EmbeddedServer) ClientURL() string { return e.srv.ClientURL() }

// Close shuts the server down (clients are disconnected, JetStream's files
// are flushed) and waits until it has stopped. It is idempotent.
func (e *EmbeddedServer) Close() {
	e.closeOnce.Do(func() {
		e.srv.Shutdown()
		e.srv.WaitForShutdown()
	})
}
