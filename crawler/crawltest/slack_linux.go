//go:build linux

package crawltest

import "time"

// Slack on Linux, where arrivals are kernel timestamps: the kernel may
// put a write's bytes on the (loopback) wire a little after write()
// returned, when the crawler starts counting (TCP autocorking, softirq
// work deferred on a loaded machine): gaps 1.4 to 3.2 ms short of the
// delay plus margin were seen on two cores under the whole test suite,
// never more. 5 ms covers that and is still far below any gap a spacing
// bug makes.
const Slack = 5 * time.Millisecond
