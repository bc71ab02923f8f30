package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/cluster"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// A cluster node's why (its running crawl's, or its state file's) knows
// only what that node decided: a URL whose host another node serves is
// "not seen" there though the crawl fetched it. clusterAsker completes
// the node's answer with the whole crawl's, from NATS: the URL's record
// in the crawl's records bucket, which every node writes each decided
// URL to (what export reads), and the node holding its host's shard.

// clusterAsker connects to the crawl's cluster as export does
// (cfg.dialCluster) and returns wrap, which completes a node's why with
// the crawl's records; when the connection failed, the answer says it is
// this node's alone and why. done disconnects. It connects before the
// node's state file is opened: a dial takes up to its timeout, and a
// node's run started meanwhile would find the file held.
func clusterAsker(ctx context.Context, cfg *Config) (wrap func(ask func(string) (crawler.Why, error)) func(string) (crawler.Why, error), done func()) {
	cl, done, err := cfg.dialCluster(ctx)
	if err != nil {
		cl, done = nil, func() {}
	}
	return func(ask func(string) (crawler.Why, error)) func(string) (crawler.Why, error) {
		return func(u string) (crawler.Why, error) {
			w, aerr := ask(u)
			if aerr != nil || w.Normal == "" {
				return w, aerr
			}
			completeWhy(ctx, cfg, &w, cl, err)
			return w, nil
		}
	}, done
}

// completeWhy adds to w, a node's why, a "cluster" step (the node whose
// state was read, the shard and its holder) and replaces its record step
// and verdict with the crawl's record, or says there is none in the crawl.
// cl is nil when the crawl could not be reached (dialErr).
func completeWhy(ctx context.Context, cfg *Config, w *crawler.Why, cl *cluster.Client, dialErr error) {
	node := cfg.Cluster.config().Node
	host := urlnorm.Authority(w.Normal)
	shard := cluster.Shard(host, cfg.Cluster.Shards)
	local := fmt.Sprintf("%s's state file %s", node, cfg.State)
	holder, rec, err := "", (*storage.URLRecord)(nil), dialErr
	if cl != nil {
		_, holder, err = cl.Owner(ctx, host)
		if err == nil {
			rec, err = clusterRecord(ctx, cl, w.Normal)
		}
	}
	held := "held by no node now (the crawl is over, or the shard is between owners)"
	switch {
	case err != nil:
		held = "whose holder is unknown"
	case holder == node:
		held = "held by this node, " + node
	case holder != "":
		held = "held by node " + holder
	}
	step := fmt.Sprintf("%s is in shard %d of %d, %s; trap guards and robots.txt above are from %s", host, shard, cfg.Cluster.Shards, held, local)
	at := len(w.Steps)
	for i, s := range w.Steps {
		if s.Step == "record" {
			at = i
		}
	}
	w.Steps = append(w.Steps[:at], append([]crawler.WhyStep{{Step: "cluster", Result: step}}, w.Steps[at:]...)...)
	r := &w.Steps[len(w.Steps)-1]
	if r.Step != "record" {
		return
	}
	switch {
	case err != nil && r.Result == notSeen:
		r.Result = fmt.Sprintf("not seen by this node (%s); the crawl's records could not be read, so another node may have decided it: %v", local, err)
	case err != nil:
		r.Result = fmt.Sprintf("%s (%s; the crawl's records could not be read: %v)", r.Result, local, err)
	case rec != nil:
		r.Result = crawler.RecordWhy(rec) + " (the crawl's records, in NATS)"
		w.Verdict = crawler.RecordVerdict(rec)
	default:
		r.Result = fmt.Sprintf("not decided by the crawl yet: no record in its records (queued or in flight on the node holding shard %d if the crawl found it); %s says: %s", shard, local, r.Result)
	}
}

// notSeen is a node's record step for a URL its state file has no record of.
const notSeen = "not seen by the crawl"

// clusterRecord is url's decided record in the crawl's records bucket, or
// nil when it has none.
func clusterRecord(ctx context.Context, cl *cluster.Client, url string) (*storage.URLRecord, error) {
	b, ok, err := cl.Record(ctx, url)
	if err != nil || !ok {
		return nil, err
	}
	var rec storage.URLRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("the record of %s: %w", url, err)
	}
	return &rec, nil
}
