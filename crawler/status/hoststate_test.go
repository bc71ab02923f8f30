package status

import (
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
)

// TestDescribe: what a person reads for each case of a host.
func TestDescribe(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	later := now.Add(2 * time.Second)
	for i, c := range []struct {
		v          frontier.HostView
		r          Robots
		state, why string
		until      time.Time
	}{
		{frontier.HostView{InFlight: true, HasWork: true}, Robots{}, StateFetching, "", time.Time{}},
		{frontier.HostView{InFlight: true}, Robots{Fetching: true}, StateRobotsFetching, "", time.Time{}},
		{frontier.HostView{HasWork: true, NextRequest: later, Interval: 2 * time.Second, DelayFrom: frontier.DelayCrawlDelay}, Robots{},
			StateWaiting, "delay 2s (robots.txt Crawl-delay)", later},
		{frontier.HostView{HasWork: true, NextRequest: now}, Robots{}, StateReady, "", time.Time{}},
		{frontier.HostView{HasWork: true, HoldUntil: later, NextRequest: later, HoldWhy: frontier.HoldRetryAfter, LastError: "HTTP 429", Failures: 2},
			Robots{}, StateBackingOff, "Retry-After after HTTP 429 (2 failures in a row)", later},
		{frontier.HostView{HasWork: true, HoldUntil: later, NextRequest: later}, Robots{}, StateHeld, "", later},
		{frontier.HostView{HasWork: true}, Robots{Unreachable: true, RetryAt: later, Reason: "timeout"}, StateRobotsUnreachable, "timeout", later},
		{frontier.HostView{}, Robots{Unreachable: true, GaveUp: true, Reason: "timeout"}, StateRobotsGaveUp, "timeout", time.Time{}},
		{frontier.HostView{Paused: true, Queued: 3}, Robots{}, StatePaused, "its robots.txt is fetched through another host", time.Time{}},
		{frontier.HostView{Fenced: true, Queued: 3}, Robots{}, StatePaused, "another node's shard", time.Time{}},
		{frontier.HostView{Stopped: true, HasWork: true, Queued: 3}, Robots{Unreachable: true, RetryAt: later}, StatePaused,
			WhyOperator, time.Time{}},
		{frontier.HostView{Queued: 1}, Robots{}, StateBusy, "", time.Time{}},
		{frontier.HostView{}, Robots{}, StateDone, "", time.Time{}},
	} {
		state, until, why := Describe(c.v, c.r, now)
		if state != c.state || !until.Equal(c.until) || why != c.why {
			t.Errorf("step %d: Describe = %q until %v (%q), want %q until %v (%q)", i, state, until, why, c.state, c.until, c.why)
		}
	}
}
