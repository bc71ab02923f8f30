package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/politecrawl/politecrawl/frontier/freshness"
)

// TestRecrawlPolicyKeys: the recheck policy's keys reach the engine, and
// a bad value is refused naming its key.
func TestRecrawlPolicyKeys(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want string // an error naming this key; "" for none
		pol  freshness.Policy
	}{
		{"daemon:\n  recrawl_interval: 24h\n", "", freshness.Policy{Interval: 24 * time.Hour, Min: time.Hour, Max: 720 * time.Hour, Share: 0.5}},
		{"daemon:\n  recrawl_interval: 24h\n  recrawl_policy: adaptive\n  recrawl_min: 10m\n  recrawl_max: 168h\n  recrawl_share: 0.2\n", "",
			freshness.Policy{Adaptive: true, Interval: 24 * time.Hour, Min: 10 * time.Minute, Max: 168 * time.Hour, Share: 0.2}},
		{"daemon:\n  recrawl_policy: adaptive\n", "daemon.recrawl_policy: adaptive needs daemon.recrawl_interval", freshness.Policy{}},
		{"daemon:\n  recrawl_interval: 1h\n  recrawl_policy: nutch\n", "daemon.recrawl_policy: \"nutch\" must be fixed or adaptive", freshness.Policy{}},
		{"daemon:\n  recrawl_min: 0s\n", "daemon.recrawl_min", freshness.Policy{}},
		{"daemon:\n  recrawl_min: 2h\n  recrawl_max: 1h\n", "daemon.recrawl_max", freshness.Policy{}},
		{"daemon:\n  recrawl_share: 1.5\n", "daemon.recrawl_share", freshness.Policy{}},
		{"daemon:\n  recrawl_share: 0\n", "daemon.recrawl_share", freshness.Policy{}},
	} {
		cfg, err := loadConfig(writeConfig(t, c.yaml), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one with %q", c.yaml, err, c.want)
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.yaml, err)
		case c.want == "" && cfg.freshnessPolicy() != c.pol:
			t.Errorf("%q: policy %+v, want %+v", c.yaml, cfg.freshnessPolicy(), c.pol)
		}
	}
}
