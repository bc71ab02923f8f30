package main

import (
	"strings"
	"testing"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/spf13/pflag"
)

// TestDefaultTrapLimits: the defaults of traps.* are frontier.DefaultLimits,
// which the crawler's trap tests crawl with.
func TestDefaultTrapLimits(t *testing.T) {
	c, err := loadConfig("", pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.limits(), frontier.DefaultLimits(); got != want {
		t.Errorf("default config limits\n %+v\nwant frontier.DefaultLimits()\n %+v", got, want)
	}
	c, err = loadConfig(writeConfig(t, "traps:\n  refuse_session_ids: false\n  max_days_ahead: 0\n"), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := c.limits(); l.RefuseSessionIDs || l.MaxDaysAhead != 0 || l.CalendarDays != 366 {
		t.Errorf("guards not switched off: %+v", l)
	}
	for _, key := range []string{"max_query_params", "max_param_repeats", "max_query_length", "max_days_ahead", "calendar_days", "max_per_date_pattern"} {
		_, err := loadConfig(writeConfig(t, "traps:\n  "+key+": -1\n"), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		if err == nil || !strings.Contains(err.Error(), "traps."+key) {
			t.Errorf("traps.%s: -1: %v", key, err)
		}
	}
}
