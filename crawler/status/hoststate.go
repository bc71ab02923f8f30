package status

import (
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
)

// A host's state, as the console and `status --hosts` show it.
const (
	StateFetching          = "fetching"               // a request is under way
	StateReady             = "ready"                  // its slot is open: next when a worker is free
	StateWaiting           = "waiting"                // its slot opens at Until (its delay)
	StateBackingOff        = "backing off"            // held until Until after failures (Why)
	StateRobotsUnreachable = "robots.txt unreachable" // held until Until, when robots.txt is tried again
	StateRobotsGaveUp      = "robots.txt gave up"     // its URLs failed; a later run tries again
	StateRobotsFetching    = "fetching robots.txt"    // its URLs wait for it
	StateHeld              = "held"                   // held until Until for another reason (a shard handover)
	StatePaused            = "paused"                 // out of the schedule (Why)
	StateBusy              = "recording"              // its URLs are handed out, their results being recorded
	StateDone              = "done"                   // nothing queued
)

// WhyOperator is why a host the operator paused is paused, and how to
// resume it, live or stopped.
const WhyOperator = "by the operator (to resume: politecrawl host resume, or POST /hosts/{host}/resume)"

// Robots is what the robots.txt cache says of a host's origins.
type Robots struct {
	Fetching    bool      // a fetch is under way
	Unreachable bool      // the last fetch found it unreachable
	GaveUp      bool      // unreachable after every retry
	RetryAt     time.Time // when an unreachable one is tried again
	Reason      string    // why it is unreachable
}

// Describe says what a host is doing at now, until when and why, from
// its frontier view and its robots.txt state.
func Describe(v frontier.HostView, r Robots, now time.Time) (state string, until time.Time, why string) {
	switch {
	case v.InFlight && r.Fetching:
		return StateRobotsFetching, time.Time{}, ""
	case v.InFlight:
		return StateFetching, time.Time{}, ""
	case v.Stopped:
		return StatePaused, time.Time{}, WhyOperator
	case r.GaveUp:
		return StateRobotsGaveUp, time.Time{}, r.Reason
	case r.Unreachable && r.RetryAt.After(now):
		return StateRobotsUnreachable, r.RetryAt, r.Reason
	case r.Fetching:
		return StateRobotsFetching, time.Time{}, ""
	case v.Fenced:
		return StatePaused, time.Time{}, "another node's shard"
	case v.Paused:
		return StatePaused, time.Time{}, "its robots.txt is fetched through another host"
	case v.HoldUntil.After(now) && v.HoldWhy != "":
		why := v.HoldWhy
		if v.LastError != "" {
			why += " after " + v.LastError
		}
		if v.Failures > 1 {
			why += fmt.Sprintf(" (%d failures in a row)", v.Failures)
		}
		return StateBackingOff, v.HoldUntil, why
	case v.HasWork && v.HoldUntil.After(now) && !v.NextRequest.After(v.HoldUntil):
		return StateHeld, v.HoldUntil, ""
	case v.HasWork && v.NextRequest.After(now):
		return StateWaiting, v.NextRequest, fmt.Sprintf("delay %v (%s)", v.Interval.Round(time.Millisecond), v.DelayFrom)
	case v.HasWork:
		return StateReady, time.Time{}, ""
	case v.Queued > 0:
		return StateBusy, time.Time{}, ""
	}
	return StateDone, time.Time{}, ""
}
