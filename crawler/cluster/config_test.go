package cluster

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	host, _ := os.Hostname()
	if c.Shards != 64 || c.LeaseTTL != 10*time.Second || c.Node != host || c.Enabled() {
		t.Errorf("DefaultConfig() = %+v, want 64 shards, 10s, node %q, standalone", c, host)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("standalone default: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{NATS: "nats://127.0.0.1:4222", Name: "crawl-1", Node: "node1.example.org", Shards: 64, LeaseTTL: 10 * time.Second}
	tests := []struct {
		change func(*Config)
		want   string // substring of the error; empty: valid
	}{
		{func(c *Config) {}, ""},
		{func(c *Config) { *c = Config{Name: "??"} }, ""}, // standalone: nothing checked
		{func(c *Config) { c.NATS = "nats://a:4222, nats://b:4222,c:4222" }, ""},
		{func(c *Config) { c.NATS = ""; c.Embed = "0.0.0.0:4222" }, ""},
		{func(c *Config) { c.NATS = "http://a:4222" }, "cluster.nats"},
		{func(c *Config) { c.NATS = "nats://" }, "cluster.nats"},
		{func(c *Config) { c.Name = "" }, "cluster.name"},
		{func(c *Config) { c.Name = "my.crawl" }, "cluster.name"},
		{func(c *Config) { c.Name = strings.Repeat("x", 65) }, "cluster.name"},
		{func(c *Config) { c.Node = "" }, "cluster.node"},
		{func(c *Config) { c.Node = ".node" }, "cluster.node"},
		{func(c *Config) { c.Node = "node." }, "cluster.node"},
		{func(c *Config) { c.Node = "no de" }, "cluster.node"},
		{func(c *Config) { c.Node = "a>" }, "cluster.node"},
		{func(c *Config) { c.Shards = 0 }, "cluster.shards"},
		{func(c *Config) { c.Shards = 10001 }, "cluster.shards"},
		{func(c *Config) { c.Shards = 1 }, ""},
		{func(c *Config) { c.Embed = "4222" }, "cluster.embed"},
		{func(c *Config) { c.Embed = "host:99999" }, "cluster.embed"},
		{func(c *Config) { c.Embed = ":4222" }, ""},
		{func(c *Config) { c.LeaseTTL = 999 * time.Millisecond }, "cluster.lease_ttl"},
		{func(c *Config) { c.LeaseTTL = 11 * time.Minute }, "cluster.lease_ttl"},
		{func(c *Config) { c.LeaseTTL = time.Second }, ""},
	}
	for i, tt := range tests {
		c := ok
		tt.change(&c)
		err := c.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("step %d: %+v: Validate() = %v, want nil", i, c, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("step %d: %+v: Validate() = %v, want an error about %s", i, c, err, tt.want)
		}
	}
}

func TestConfigURLs(t *testing.T) {
	if got := (Config{Embed: "127.0.0.1:4222"}).URLs(); got != "nats://127.0.0.1:4222" {
		t.Errorf("embed only: URLs() = %q", got)
	}
	if got := (Config{NATS: "nats://a:1", Embed: "127.0.0.1:4222"}).URLs(); got != "nats://a:1" {
		t.Errorf("nats and embed: URLs() = %q", got)
	}
	for _, embed := range []string{":4222", "0.0.0.0:4222", "[::]:4222"} {
		if got := (Config{Embed: embed}).URLs(); got != "nats://127.0.0.1:4222" {
			t.Errorf("embed %q: URLs() = %q, want loopback", embed, got)
		}
	}
	if got := (Config{Embed: "[::1]:4222"}).URLs(); got != "nats://[::1]:4222" {
		t.Errorf("embed [::1]:4222: URLs() = %q", got)
	}
}
