package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// kvStore is the part of jetstream.KeyValue the Manager uses; tests wrap it
// to cut a node off from the server.
type kvStore interface {
	Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error)
	Put(ctx context.Context, key string, value []byte) (uint64, error)
	Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error)
	Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error)
	Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error
	WatchAll(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error)
}

// LeasesBucket and MembersBucket name the crawl's key-value buckets.
func LeasesBucket(crawl string) string  { return "politecrawl_" + crawl + "_leases" }
func MembersBucket(crawl string) string { return "politecrawl_" + crawl + "_members" }

// bucketDescription records the crawl's shard count in its buckets, so a
// node configured with another count is refused.
func bucketDescription(shards int) string {
	return fmt.Sprintf("politecrawl cluster, shards=%d", shards)
}

// openBucket creates a bucket whose keys expire ttl after their last write,
// or opens it if it exists with the same TTL and description. A different
// TTL would break the lease arithmetic of nodes already running, so it is
// refused (ErrMismatch) rather than updated.
func openBucket(ctx context.Context, js jetstream.JetStream, name, desc string, ttl time.Duration, replicas int) (jetstream.KeyValue, error) {
	cfg := jetstream.KeyValueConfig{
		Bucket:      name,
		Description: desc,
		History:     1,
		TTL:         ttl,
		Storage:     jetstream.FileStorage, // a restarted server must not forget leases
		Replicas:    replicas,
	}
	return createRetrying(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		kv, err := js.CreateKeyValue(ctx, cfg)
		if err == nil {
			return kv, nil
		}
		if !errors.Is(err, jetstream.ErrBucketExists) {
			return nil, fmt.Errorf("create bucket %s: %w", name, err)
		}
		if kv, err = js.KeyValue(ctx, name); err != nil {
			return nil, fmt.Errorf("open bucket %s: %w", name, err)
		}
		st, err := kv.Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("bucket %s status: %w", name, err)
		}
		got := st.Config()
		if got.TTL != ttl || got.Description != desc {
			return nil, fmt.Errorf("bucket %s has ttl %s and %q, this node wants %s and %q: %w",
				name, got.TTL, got.Description, ttl, desc, ErrMismatch)
		}
		return kv, nil
	})
}

// snapshot returns the live entries of a bucket: each key whose last
// revision is a value (not a delete marker) and has not expired.
func snapshot(ctx context.Context, kv kvStore) (map[string]jetstream.KeyValueEntry, error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	out := make(map[string]jetstream.KeyValueEntry)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("watcher closed")
			}
			if e == nil { // end of the initial values
				return out, nil
			}
			out[e.Key()] = e
		}
	}
}
