package crawler

import (
	"log/slog"

	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/frontier"
)

// urlWriter owns the writing of URL records and the outcomes they report:
// a fetched page's record (fetchedRecord), its final state (finish), a
// retry with its host's backoff, a queue head settled unfetched, a
// sitemap's fetch, and the URLs a page, its links or a seed hand the
// frontier (discover, admitLinks). Every write goes
// through the frontier in the same call, and every outcome is noted on the
// batch that records it (event), so that it is reported once that batch
// committed.
type urlWriter struct {
	cfg     *Config
	log     *slog.Logger
	front   *frontier.Frontier[task]
	commits *groupcommit.Pipeline[Event]
}
