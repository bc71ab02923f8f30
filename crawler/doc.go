// Package crawler runs a crawl: it wires a fixed pool of workers (fetch,
// extract, archive) to the owners of the crawl's state, which one
// coordinator goroutine drives: the frontier (frontier.Frontier: every
// host's queue, slot, claims, backoff, sitemap files and recheck
// schedule), the robots.txt cache (crawler/robotscache) and the batch
// pipeline (crawler/groupcommit). The crawler keeps no host state of its
// own and builds no storage keys.
//
// Within the package, each piece of the coordinator's work has a type
// that owns it, and Crawler only wires them and runs the loop: urlWriter
// writes URL records and notes their outcomes for the batch; siteRules
// says what a URL's site allows (robots.txt rules, content-use signals);
// robotsOutcomes applies and records robots.txt results; hostLookups
// feeds the resolver; explainer answers Explain; NodeEngine is the crawl's
// side of a cluster node (cluster.Engine); pool is the workers.
//
// # The pipeline of one URL
//
//  1. Admission: a discovered URL is normalised, checked against the seen
//     set, scope, limits and trap guards and, when its origin's robots.txt
//     is already known, against it (Frontier.Admit); it is then queued or
//     recorded as skipped or disallowed.
//  2. Dispatch: the coordinator claims the slot of a host whose slot is
//     open (Frontier.Claim: one request in flight per host, start-to-start
//     spacing from frontier.Delay raised by the adaptive delay, via the
//     host's rate limiter). A host whose name is not looked up yet (or
//     whose answer expired) is claimed only once crawler/resolve has
//     answered (Frontier.Lookups, Resolved), and its request is pinned to
//     that address (fetch.WithAddress). Until the origin's
//     robots.txt outcome is known, or after it expires, the only request
//     sent to the host is for /robots.txt. A head URL that robots.txt
//     disallows, or that the scope rules exclude now (a reload changed
//     them: Frontier.OutOfScope), is recorded and the claimed slot handed
//     back unused. With a declared purpose (Config.Purpose), the origin's
//     tdmrep.json is asked for the same way and kept as long (a failure backs
//     the host off as on a page), and a URL its robots.txt
//     content-use lines or tdmrep.json refuse for the purpose is recorded
//     disallowed (contentuse.go; crawler/contentuse owns the vocabulary).
//  3. Fetch and extract happen on a worker, which also reads the
//     response's content-use signals (a response refused for the declared
//     purpose is not stored). A response of a type scope.accept_types does
//     not list is cut after its headers and recorded skipped. Whether the
//     body is kept and the exchange archived is its host's (the hosts:
//     overrides), decided at dispatch. With Config.Archive set, the worker
//     also writes the exchange's WARC records (crawler/archive), fed the
//     raw bytes that fetch captured on the connection.
//  4. Record: the coordinator commits the result in one transaction with
//     the removal from the queue, the host's politeness state and the
//     links it admits. Results waiting together commit together, after
//     the WARC file holding their records has been synced.
//
// # Drained and shutdown
//
// Run returns nil when nothing is queued, in flight or waiting on a retry,
// but for the URLs of hosts the operator paused, which it logs as held.
// When its context is cancelled it stops dispatching, gives in-flight
// fetches ShutdownGrace to finish (then cancels them; their URLs stay at the
// head of their queues), commits what finished, and returns nil.
//
// A crash marker in the state file tells the next start that the previous
// run did not stop cleanly; every host then waits a full interval before its
// first request, since a request may have been sent just before the crash.
package crawler
