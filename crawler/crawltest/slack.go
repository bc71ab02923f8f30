package crawltest

// Slack (see slack_linux.go and slack_other.go) is how far below a host's
// delay a gap measured on a real network may fall before Violations
// reports it. Where requests are timed by the kernel's receive timestamp
// (Linux), a gap the crawler spaced correctly is short only by the kernel's
// own transmit delay: the crawler counts its delay from after its write
// returned. Elsewhere the server notes a request when its handler starts,
// and scheduling on a loaded machine can delay one handler more than the
// next (gaps 20 ms short were seen with a load average of 11 on two
// cores). Exact gaps are asserted in fake time (testing/synctest over
// PipeNet) besides.
