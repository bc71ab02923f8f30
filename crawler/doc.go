// Package crawler runs a crawl: one coordinator goroutine owns every piece
// of scheduling state (the per-host schedule, the robots.txt state of each
// origin, host backoff) and a fixed pool of workers does the network work.
//
// # The pipeline of one URL
//
//  1. Admission: a discovered URL is normalised, checked against the seen
//     set, scope, limits and trap guards (frontier.Admitter) and, when its
//     origin's robots.txt is already known, against it; it is then queued
//     or recorded as skipped or disallowed.
//  2. Dispatch: the coordinator asks the schedule for a host whose slot is
//     open (one request in flight per host, start-to-start spacing from
//     frontier.Delay via the host's rate limiter). Until the origin's
//     robots.txt outcome is known, or after it expires, the only request
//     sent to the host is for /robots.txt. A head URL that robots.txt
//     disallows is recorded and the claimed slot handed back unused.
//  3. Fetch and extract happen on a worker. With Config.Archive set, the
//     worker also writes the exchange's WARC records (crawler/archive),
//     fed the raw bytes that fetch captured on the connection.
//  4. Record: the coordinator commits the result in one transaction with
//     the removal from the queue, the host's politeness state and the
//     links it admits. Results waiting together commit together, after
//     the WARC file holding their records has been synced.
//
// # Drained and shutdown
//
// Run returns nil when nothing is queued, in flight or waiting on a retry.
// When its context is cancelled it stops dispatching, gives in-flight
// fetches ShutdownGrace to finish (then cancels them; their URLs stay at the
// head of their queues), commits what finished, and returns nil.
//
// A crash marker in the state file tells the next start that the previous
// run did not stop cleanly; every host then waits a full interval before its
// first request, since a request may have been sent just before the crash.
package crawler
