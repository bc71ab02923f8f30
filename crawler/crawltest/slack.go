package crawltest

import "time"

// Slack is how far below a host's delay a gap measured on a real network
// may fall before Violations reports it. The server notes a request when
// its handler starts, and scheduling on a loaded machine can delay one
// handler more than the next (gaps 20 ms short were seen with a load
// average of 11 on two cores, by the first commit's code as by later ones);
// exact gaps are asserted in fake time (testing/synctest over PipeNet)
// instead. A crawl with no spacing at all still shows gaps near zero.
const Slack = 30 * time.Millisecond
