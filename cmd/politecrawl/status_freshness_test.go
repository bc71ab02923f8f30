package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/status"
)

// TestPrintStatusFreshness: status prints the recheck schedule's lines
// only when there is a schedule, with the interval rounded to read, and
// says what the freshness figure is: the long-run share the schedule
// keeps current, from change rates assumed until rechecks measure them
// (it read as the share current now: 65% seconds after three pages were
// fetched under a 24h fixed schedule).
func TestPrintStatusFreshness(t *testing.T) {
	for _, c := range []struct {
		st   status.Status
		want []string
		not  []string
	}{
		{status.Status{Recrawls: 12, RechecksNextHour: 3, MeanIntervalS: 40.3, EstimatedFreshness: 0.8712},
			[]string{"recrawls    12 scheduled, 3 due within the hour\n",
				"freshness   87.1% of pages current on average over time (estimated; not now), rechecked every 40s on average\n",
				"            (from each page's change rate: measured by its rechecks; before them, from its sitemap entry or one change per recrawl_interval)\n"}, nil},
		{status.Status{Recrawls: 1, MeanIntervalS: 90061, EstimatedFreshness: 0.5},
			[]string{"rechecked every 25h1m0s on average"}, nil},
		{status.Status{}, nil, []string{"recrawls", "freshness"}},
	} {
		var b bytes.Buffer
		printStatus(&b, &c.st)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("status %+v: output lacks %q:\n%s", c.st, w, b.String())
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("status %+v: output has %q:\n%s", c.st, w, b.String())
			}
		}
	}
}
