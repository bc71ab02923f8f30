package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestNATSHint: a command that cannot reach the cluster's NATS server
// (after a crawl whose server a node embedded, from another node's
// config) says what to do; it said only "nats: no servers available for
// connection".
func TestNATSHint(t *testing.T) {
	noServers := fmt.Errorf("cluster: connect to nats://127.0.0.1:4222: %w", nats.ErrNoServers)
	for _, c := range []struct {
		embed string
		err   error
		want  []string
	}{
		{"", noServers, []string{"the cluster's NATS server, cluster.nats nats://127.0.0.1:4222, is not running",
			"use the config of the node that embeds it (cluster.embed)", "or start nats-server"}},
		{"127.0.0.1:4222", noServers, []string{"nothing answers at cluster.embed 127.0.0.1:4222", "node2.db.nats holds no server data"}},
		{"", errors.New("bucket politecrawl_x_records: timeout"), nil},
	} {
		cfg := &Config{State: "node2.db"}
		cfg.Cluster.NATS, cfg.Cluster.Embed = "nats://127.0.0.1:4222", c.embed
		got := natsHint(cfg, c.err)
		if len(c.want) == 0 && got != "" {
			t.Errorf("%v: hint %q, want none", c.err, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("embed %q, %v: hint %q lacks %q", c.embed, c.err, got, w)
			}
		}
	}
}
