package main

import "log/slog"

// fdReserve is what the crawl needs besides idle connections: one
// descriptor per worker's request, the state file and its backup, WARC
// files, the control socket, the HTTP endpoint and its clients, a cluster
// node's NATS connections, and room for the runtime.
const fdReserve = 256

// fitIdleConns turns network.idle_connections into fetch.Options.IdleConns
// and lowers it to what the open-file limit leaves after the crawl's own
// needs: idle connections past the limit would make new connections fail
// with "too many open files" instead of just being closed. (Go raises the
// soft limit to the hard one at start; this reads the raised value.) Zero
// means no keep-alive, which fetch spells as a negative count.
func fitIdleConns(n, workers int, log *slog.Logger) int {
	limit, ok := openFileLimit()
	return fitIdle(n, workers, limit, ok, log)
}

// fitIdle is fitIdleConns with the open-file limit given (ok false: not
// known).
func fitIdle(n, workers int, limit uint64, ok bool, log *slog.Logger) int {
	if n == 0 {
		return -1
	}
	if !ok {
		return n
	}
	room := int(min(limit, 1<<30)) - fdReserve - 2*workers
	if n <= room {
		return n
	}
	fit := max(room, 0)
	log.Warn("network.idle_connections lowered to fit the open-file limit; raise it (ulimit -n, LimitNOFILE=) for more",
		"idle_connections", n, "now", fit, "open_file_limit", limit)
	if fit == 0 {
		return -1
	}
	return fit
}
