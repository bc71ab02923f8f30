//go:build !linux

package crawltest

import "time"

// Slack where arrivals are handler starts: see slack.go.
const Slack = 30 * time.Millisecond
