package cluster

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits checked by Validate.
const (
	maxShards   = 10000            // shard keys have four digits
	minLeaseTTL = time.Second      // the server sweeps expired keys every 250 ms at best
	maxLeaseTTL = 10 * time.Minute // a dead node's shards wait this long at most
	maxNameLen  = 64
)

var (
	// A crawl name becomes part of bucket and stream names.
	validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	// A node name becomes a key of the members bucket.
	validNode = regexp.MustCompile(`^[A-Za-z0-9_=-][-/_=.A-Za-z0-9]*$`)
)

// Config holds the cluster.* keys of the configuration file (pinned by issue
// 10). The zero value is a standalone crawl; start from DefaultConfig for the
// documented defaults.
type Config struct {
	// NATS is cluster.nats: the URL(s), comma-separated, of a JetStream-enabled
	// NATS server or cluster. Empty with Embed empty means standalone.
	NATS string
	// Name is cluster.name: nodes with the same name share one crawl.
	Name string
	// Node is cluster.node: this node's name, unique within the crawl.
	Node string
	// Shards is cluster.shards: the number of host partitions, fixed for the
	// crawl's life.
	Shards int
	// Embed is cluster.embed: host:port on which this process also runs a
	// NATS server with JetStream (data next to the state file, see StoreDirFor).
	Embed string
	// LeaseTTL is cluster.lease_ttl: how long a dead node's shards stay
	// unowned before other nodes take them.
	LeaseTTL time.Duration
}

// DefaultConfig returns the defaults: standalone, 64 shards, a 10 s lease
// and the machine's hostname as the node name.
func DefaultConfig() Config {
	host, _ := os.Hostname()
	return Config{Node: host, Shards: 64, LeaseTTL: 10 * time.Second}
}

// Enabled reports whether the crawl runs as a cluster: cluster.nats or
// cluster.embed is set.
func (c Config) Enabled() bool { return c.NATS != "" || c.Embed != "" }

// URLs returns the NATS URLs to connect to: cluster.nats, or the embedded
// server's address when only cluster.embed is set (loopback when it listens
// on every interface).
func (c Config) URLs() string {
	if c.NATS != "" {
		return c.NATS
	}
	host, port, err := net.SplitHostPort(c.Embed)
	if err != nil {
		return "nats://" + c.Embed
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "nats://" + net.JoinHostPort(host, port)
}

// Validate checks a cluster configuration and names the offending key. A
// standalone configuration (Enabled false) is always valid.
func (c Config) Validate() error {
	if !c.Enabled() {
		return nil
	}
	checks := []func() error{c.validateNATS, c.validateName, c.validateNode, c.validateShards, c.validateEmbed, c.validateTTL}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validateNATS() error {
	if c.NATS == "" {
		return nil
	}
	for _, u := range strings.Split(c.NATS, ",") {
		u = strings.TrimSpace(u)
		if !strings.Contains(u, "://") {
			u = "nats://" + u
		}
		p, err := url.Parse(u)
		if err != nil || p.Host == "" {
			return fmt.Errorf("cluster.nats: %q is not a NATS URL (nats://host:port, comma-separated)", u)
		}
		switch p.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("cluster.nats: %q: scheme %q, want nats, tls, ws or wss", u, p.Scheme)
		}
	}
	return nil
}

func (c Config) validateName() error {
	if !validName.MatchString(c.Name) || len(c.Name) > maxNameLen {
		return fmt.Errorf("cluster.name: %q: want 1 to %d of A-Z a-z 0-9 _ -", c.Name, maxNameLen)
	}
	return nil
}

func (c Config) validateNode() error {
	if !validNode.MatchString(c.Node) || len(c.Node) > 255 || strings.HasSuffix(c.Node, ".") {
		return fmt.Errorf("cluster.node: %q: want a unique name of A-Z a-z 0-9 and - _ = / . (not at the ends)", c.Node)
	}
	return nil
}

func (c Config) validateShards() error {
	if c.Shards < 1 || c.Shards > maxShards {
		return fmt.Errorf("cluster.shards: %d: want 1 to %d", c.Shards, maxShards)
	}
	return nil
}

func (c Config) validateEmbed() error {
	if c.Embed == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(c.Embed)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return fmt.Errorf("cluster.embed: %q: want host:port", c.Embed)
	}
	return nil
}

func (c Config) validateTTL() error {
	if c.LeaseTTL < minLeaseTTL || c.LeaseTTL > maxLeaseTTL {
		return fmt.Errorf("cluster.lease_ttl: %s: want %s to %s", c.LeaseTTL, minLeaseTTL, maxLeaseTTL)
	}
	return nil
}
