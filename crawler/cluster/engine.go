package cluster

import (
	"context"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// Engine is what a Node needs of the crawl engine it takes part in the
// cluster for (crawler.NodeEngine implements it: crawler.Crawler.Engine
// returns it). A test gives a Node a fake
// one to drive a shard's work without fetching anything.
type Engine interface {
	// Admit admits URLs handed to this node (see crawler.NodeEngine.Admit).
	Admit(ctx context.Context, cands []frontier.Candidate) ([]crawler.Admission, error)
	// Learn gives the engine what a shard's previous owner learnt of
	// each host's server (each record's time to first byte and error
	// delay, which its delay continues from, and its last answer's
	// status, which status shows until the host answers again).
	Learn(ctx context.Context, learnt map[string]storage.HostRecord) error
	// HoldHosts keeps each host from a request before its time.
	HoldHosts(ctx context.Context, until map[string]time.Time) error
	// ImportRobots takes the robots.txt files a shard's previous owner read.
	ImportRobots(ctx context.Context, recs map[string]*storage.RobotsRecord) error
	// Serve lets the engine serve the hosts whose shards this node holds
	// again, each held hold(host) from now.
	Serve(ctx context.Context, hold func(host string) time.Duration) error
	// HostRecords returns the timing of the hosts match selects.
	HostRecords(ctx context.Context, match func(host string) bool) (map[string]storage.HostRecord, error)
	// InFlight counts the requests to hosts match selects that are under
	// way or whose outcomes are not committed yet.
	InFlight(ctx context.Context, match func(host string) bool) (int, error)
	// CancelHosts cuts the requests to hosts match selects short; it must
	// not block.
	CancelHosts(match func(host string) bool) int
}

var _ Engine = (*crawler.NodeEngine)(nil)
