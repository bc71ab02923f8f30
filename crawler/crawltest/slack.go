package crawltest

import "time"

// Slack is how far below a host's delay a gap measured on a real network
// may fall before Violations reports it. The server notes a request when
// its handler starts, and scheduling on a loaded machine can delay one
// handler more than the next; exact gaps are asserted in fake time
// (testing/synctest over PipeNet) instead.
const Slack = 20 * time.Millisecond
