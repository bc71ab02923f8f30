package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// Client reads and seeds a clustered crawl from outside its nodes (the
// status, export and seed commands): it needs only the cluster keys.
type Client struct {
	cfg     Config
	nc      *nats.Conn
	js      jetstream.JetStream
	records jetstream.KeyValue
	hand    *Handoff
}

// DialClient connects to the crawl's NATS server(s).
func DialClient(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	nc, js, err := connect(ctx, cfg, nil)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, nc: nc, js: js}
	if c.records, _, _, err = crawlBuckets(ctx, js, cfg.Name, 1, true); err != nil {
		nc.Close()
		return nil, err
	}
	if c.hand, err = NewHandoff(ctx, js, cfg.Name, cfg.Shards, HandoffOptions{Client: true}); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// Close disconnects.
func (c *Client) Close() { c.nc.Close() }

// Summary is the whole crawl as any node sees it.
type Summary struct {
	// Counts of decided URLs by state (every state, 0 included), and
	// Undecided: URLs waiting in the crawl's shards (queued or in flight
	// on some node).
	Counts    map[string]int `json:"counts"`
	Undecided uint64         `json:"undecided"`
	// Owners maps each leased shard to its node; Nodes lists the live
	// nodes with their shards.
	Owners map[int]string   `json:"owners"`
	Nodes  map[string][]int `json:"nodes"`
	Shards int              `json:"shards"`
}

// Summary reads the crawl's counts and shard owners.
func (c *Client) Summary(ctx context.Context) (*Summary, error) {
	s := &Summary{Counts: map[string]int{}, Owners: map[int]string{}, Nodes: map[string][]int{}, Shards: c.cfg.Shards}
	for _, st := range storage.States {
		if st != storage.Queued {
			s.Counts[string(st)] = 0 // every decided state, as standalone status shows them
		}
	}
	err := c.Records(ctx, func(b json.RawMessage) error {
		var r struct {
			State string `json:"state"`
		}
		if json.Unmarshal(b, &r) == nil {
			s.Counts[r.State]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.Undecided, err = c.hand.Pending(ctx); err != nil {
		return nil, err
	}
	leases, err := c.js.KeyValue(ctx, LeasesBucket(c.cfg.Name))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", LeasesBucket(c.cfg.Name), err)
	}
	if s.Owners, err = owners(ctx, leases, c.cfg.Shards); err != nil {
		return nil, err
	}
	for shard, node := range s.Owners {
		s.Nodes[node] = append(s.Nodes[node], shard)
	}
	for _, l := range s.Nodes {
		sort.Ints(l)
	}
	return s, nil
}

// Records calls fn with every decided URL's record (JSON, the export
// record), in no particular order.
func (c *Client) Records(ctx context.Context, fn func(json.RawMessage) error) error {
	w, err := c.records.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return fmt.Errorf("read records: %w", err)
	}
	return drainWatch(ctx, w, func(e jetstream.KeyValueEntry) error {
		b, err := decodeRecordValue(e.Value())
		if err != nil {
			return fmt.Errorf("record %s: %w", e.Key(), err)
		}
		return fn(b)
	})
}

// Record returns the decided record of url (normalised, as the crawl
// keys it) from the crawl's records bucket, as JSON (the export record);
// ok is false when the crawl has not decided it: never seen, or queued
// or in flight on the node holding its shard.
func (c *Client) Record(ctx context.Context, url string) (rec json.RawMessage, ok bool, err error) {
	e, err := c.records.Get(ctx, urlKey(url))
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the record of %s: %w", url, err)
	}
	b, err := decodeRecordValue(e.Value())
	if err != nil {
		return nil, false, fmt.Errorf("record of %s: %w", url, err)
	}
	return b, true, nil
}

// Owner says which shard host (host:port) belongs to and which node
// holds that shard's lease now; node is "" when none does (the crawl is
// over, or the shard is between owners).
func (c *Client) Owner(ctx context.Context, host string) (shard int, node string, err error) {
	shard = Shard(host, c.cfg.Shards)
	leases, err := c.js.KeyValue(ctx, LeasesBucket(c.cfg.Name))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return shard, "", nil
	}
	if err != nil {
		return shard, "", fmt.Errorf("bucket %s: %w", LeasesBucket(c.cfg.Name), err)
	}
	e, err := leases.Get(ctx, shardKey(shard))
	if isNotFound(err) {
		return shard, "", nil
	}
	if err != nil {
		return shard, "", fmt.Errorf("read the lease of shard %d: %w", shard, err)
	}
	return shard, parseStamp(e.Value()).Node, nil
}

// Seed hands URLs to their shards as seeds. Each is normalised; the
// outcome per URL is "queued" (handed over: its shard's owner admits it,
// subject to scope, limits and robots.txt, unless it was decided before)
// or "invalid: ...".
func (c *Client) Seed(ctx context.Context, urls []string) ([]string, error) {
	out := make([]string, len(urls))
	var cands []frontier.Candidate
	for i, raw := range urls {
		u, err := urlnorm.Normalise(raw)
		if err != nil {
			out[i] = "invalid: " + err.Error()
			continue
		}
		out[i] = "queued"
		cands = append(cands, frontier.Candidate{URL: u, Via: "seed"})
	}
	n := &Node{cfg: c.cfg, js: c.js, hand: c.hand}
	if err := n.publish(ctx, cands); err != nil {
		return nil, err
	}
	return out, nil
}
