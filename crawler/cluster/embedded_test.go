package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
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
