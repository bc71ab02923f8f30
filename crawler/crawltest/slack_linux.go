//go:build linux

package crawltest

import "time"

// Slack on Linux, where arrivals are kernel timestamps: the kernel may
// put a write's bytes on the (loopback) wire a little after write()
// returned, when the crawler starts counting (TCP autocorking holds a
// small write while an earlier segment, such as the handshake's last ACK,
// is still queued; the release waits for softirq work that a loaded
// machine defers). Seen on two cores under the whole -race suite: gaps
// 1.4 to 7.3 ms short of delay plus margin, the worst on a new
// connection's first request. 10 ms covers that and is still a third of
// what handler timestamps needed.
const Slack = 10 * time.Millisecond
