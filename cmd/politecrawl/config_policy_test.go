package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// policy.purpose: a known purpose reaches the engine; an unknown one is an
// error naming the key and the purposes it may be, not a free label that
// would silently honour nothing.
func TestConfigPolicyPurpose(t *testing.T) {
	for _, tc := range []struct {
		yaml, want, err string
	}{
		{"", "", ""},
		{"policy:\n  purpose: ai-train\n", "ai-train", ""},
		{"policy:\n  purpose: archive\n", "archive", ""},
		{"policy:\n  purpose: ai_train\n", "", "policy.purpose: unknown purpose \"ai_train\": one of archive, search, ai-input, ai-train"},
		{"policy:\n  purpose: AI-Train\n", "", "policy.purpose"},
	} {
		c, err := loadConfig(writeConfig(t, tc.yaml), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if got := c.crawlerConfig(slog.New(slog.DiscardHandler)).Purpose; got != tc.want {
			t.Errorf("%q: purpose %q, want %q", tc.yaml, got, tc.want)
		}
	}
}
