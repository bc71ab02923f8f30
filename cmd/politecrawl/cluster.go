package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/cluster"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
)

// clusterConfig is the cluster.* section (pinned by issue 10). All empty
// is a standalone crawl, exactly as without the section.
type clusterConfig struct {
	NATS     string        `mapstructure:"nats"`
	Name     string        `mapstructure:"name"`
	Node     string        `mapstructure:"node"`
	Shards   int           `mapstructure:"shards"`
	Embed    string        `mapstructure:"embed"`
	LeaseTTL time.Duration `mapstructure:"lease_ttl"`
}

var clusterDefaults = map[string]any{
	"cluster.nats":      "",
	"cluster.name":      "",
	"cluster.node":      "",
	"cluster.shards":    64,
	"cluster.embed":     "",
	"cluster.lease_ttl": "10s",
}

func init() {
	for k, v := range clusterDefaults {
		defaults[k] = v
	}
}

// config returns the cluster package's view, the node name defaulting to
// the hostname.
func (c clusterConfig) config() cluster.Config {
	node := c.Node
	if node == "" {
		node, _ = os.Hostname()
	}
	return cluster.Config{NATS: c.NATS, Name: c.Name, Node: node, Shards: c.Shards, Embed: c.Embed, LeaseTTL: c.LeaseTTL}
}

func (c clusterConfig) enabled() bool { return c.config().Enabled() }

func (c *Config) validateCluster() []error {
	cc := c.Cluster.config()
	if !cc.Enabled() {
		return nil
	}
	var errs []error
	if err := cc.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Daemon.RecrawlInterval > 0 {
		errs = append(errs, errors.New("daemon.recrawl_interval: not supported in a cluster yet (cluster.nats or cluster.embed is set)"))
	}
	return errs
}

// startEmbedded runs the NATS server of cluster.embed, if set, with its
// data next to the state file.
func (c *Config) startEmbedded(ctx context.Context, log *slog.Logger) (*cluster.EmbeddedServer, error) {
	if c.Cluster.Embed == "" {
		return nil, nil
	}
	cc := c.Cluster.config()
	srv, err := cluster.StartEmbedded(ctx, cluster.Options{Listen: cc.Embed, StoreDir: cluster.StoreDirFor(c.State),
		ServerName: cc.Node, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("cluster.embed: %w", err)
	}
	return srv, nil
}

// dialCluster connects a status, export or seed command to the crawl.
// With cluster.embed set and no server answering there (the crawl is
// over and its node gone), it starts the embedded server on its data, on
// a loopback port of its own, for as long as the command runs (close).
func (c *Config) dialCluster(ctx context.Context) (cl *cluster.Client, close func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cc := c.Cluster.config()
	cl, err = cluster.DialClient(ctx, cc)
	if err != nil && c.Cluster.Embed == "" {
		return nil, nil, fmt.Errorf("%w%s", err, natsHint(c, err))
	}
	if err == nil {
		return cl, cl.Close, nil
	}
	if _, serr := os.Stat(cluster.StoreDirFor(c.State)); serr != nil {
		return nil, nil, fmt.Errorf("%w%s", err, natsHint(c, err))
	}
	srv, serr := cluster.StartEmbedded(ctx, cluster.Options{Listen: "127.0.0.1:0", StoreDir: cluster.StoreDirFor(c.State), ServerName: cc.Node})
	if serr != nil {
		return nil, nil, fmt.Errorf("%w (and the embedded server's data could not be opened: %v)", err, serr)
	}
	cc.NATS, cc.Embed = srv.ClientURL(), ""
	if cl, err = cluster.DialClient(ctx, cc); err != nil {
		srv.Close()
		return nil, nil, err
	}
	return cl, func() { cl.Close(); srv.Close() }, nil
}

// natsHint follows err, a failure to reach the cluster's NATS server,
// with what to do: after a crawl whose server a node embedded, the other
// nodes' configs point at a server that is gone.
func natsHint(c *Config, err error) string {
	if !errors.Is(err, nats.ErrNoServers) {
		return ""
	}
	if c.Cluster.Embed != "" {
		return fmt.Sprintf(" (nothing answers at cluster.embed %s, and %s holds no server data to start it on: is this the config the embedding node ran with?)",
			c.Cluster.Embed, cluster.StoreDirFor(c.State))
	}
	return fmt.Sprintf(" (the cluster's NATS server, cluster.nats %s, is not running: after the crawl, use the config of the node that embeds it "+
		"(cluster.embed), which starts it on its data for this command, or start nats-server)", c.Cluster.NATS)
}

// clusterNode is a run's part in a clustered crawl: the embedded server if
// any, and the node that feeds the engine.
type clusterNode struct {
	srv    *cluster.EmbeddedServer
	node   *cluster.Node
	wait   time.Duration // how long the server's node waits for the others to leave
	closed sync.Once
}

// joinCluster starts cluster.embed's server if set and connects the node;
// cc is set up to run as that node. Nil without cluster keys.
func (c *Config) joinCluster(ctx context.Context, cc *crawler.Config, log *slog.Logger, reg prometheus.Registerer) (*clusterNode, error) {
	if !c.Cluster.enabled() {
		return nil, nil
	}
	srv, err := c.startEmbedded(ctx, log)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	node, err := cluster.DialNode(dctx, c.Cluster.config(), cluster.NodeOptions{Logger: log, Now: cc.Now,
		DefaultDelay: c.Politeness.DefaultDelay, Adaptive: c.adaptive(), RequestTimeout: c.Network.Timeout})
	if err != nil {
		if srv != nil {
			srv.Close()
		}
		return nil, err
	}
	node.Register(reg)
	cc.Node = node
	return &clusterNode{srv: srv, node: node, wait: c.Cluster.LeaseTTL + 5*time.Second}, nil
}

// attach gives the node the engine it feeds and the state file it reads
// outcomes from.
func (n *clusterNode) attach(c *crawler.Crawler, db *storage.DB) {
	if n != nil {
		n.node.Attach(c.Engine(), db)
	}
}

// run takes part in the crawl (after attach); when the whole crawl is
// drained it calls drained (which stops the engine).
func (n *clusterNode) run(ctx context.Context, drained func(), log *slog.Logger) {
	go func() {
		if err := n.node.Run(ctx); err == nil {
			drained()
		} else if ctx.Err() == nil {
			log.Error("cluster node stopped", "err", err)
			drained()
		}
	}()
}

// close hands the node's shards over and stops the embedded server.
func (n *clusterNode) close() {
	if n == nil {
		return
	}
	n.closed.Do(func() {
		if n.srv != nil {
			// The others need the server to hand over and leave.
			ctx, cancel := context.WithTimeout(context.Background(), n.wait)
			n.node.WaitOthers(ctx)
			cancel()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		n.node.Close(ctx)
		if n.srv != nil {
			n.srv.Close()
		}
	})
}

// clusterStatus prints the whole crawl's counts and shard owners.
func clusterStatus(ctx context.Context, cfg *Config, w io.Writer, asJSON bool) error {
	cl, done, err := cfg.dialCluster(ctx)
	if err != nil {
		return err
	}
	defer done()
	s, err := cl.Summary(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	fmt.Fprintf(w, "crawl %s: %d undecided (queued or in flight on some node)\n", cfg.Cluster.Name, s.Undecided)
	for _, st := range storage.States {
		if st != storage.Queued {
			fmt.Fprintf(w, "  %-10s %d\n", st, s.Counts[string(st)])
		}
	}
	fmt.Fprintf(w, "shards: %d, %d leased\n", s.Shards, len(s.Owners))
	nodes := make([]string, 0, len(s.Nodes))
	for n := range s.Nodes {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		fmt.Fprintf(w, "  %-20s %d shards %v\n", n, len(s.Nodes[n]), s.Nodes[n])
	}
	return nil
}

// clusterExport writes every decided URL of the whole crawl, one JSON
// object per line, as the standalone export does.
func clusterExport(ctx context.Context, cfg *Config, w io.Writer) error {
	cl, done, err := cfg.dialCluster(ctx)
	if err != nil {
		return err
	}
	defer done()
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	err = cl.Records(ctx, func(b json.RawMessage) error {
		var r storage.URLRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("export: a record in the crawl's bucket: %w", err)
		}
		return enc.Encode(newExportRecord(&r))
	})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return bw.Flush()
}

// clusterSeed hands URLs to the crawl's shards.
func clusterSeed(ctx context.Context, cfg *Config, urls []string) ([]crawler.SeedResult, error) {
	cl, done, err := cfg.dialCluster(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	// Out of scope is said here, as standalone seed does: the shard's
	// owner would drop such a URL without a word.
	scope, err := cfg.compileScope()
	if err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	res := make([]crawler.SeedResult, len(urls))
	var send []string
	var at []int
	for i, u := range urls {
		res[i].URL = u
		if n, err := urlnorm.Normalise(u); err == nil && !scope.Contains(n) {
			res[i].Outcome = "out of scope"
			continue
		}
		send, at = append(send, u), append(at, i)
	}
	out, err := cl.Seed(ctx, send)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		res[i].Outcome = out[j]
	}
	return res, nil
}
