package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// createAttempts bounds createRetrying, and createTry each attempt: an
// answer lost while the servers agree on who creates (nats-server 2.9.10
// clustered left the loser of concurrent creates unanswered now and then:
// TestClusterOnNATSServers, a node's whole 30 s start) costs one try,
// not the start.
const (
	createAttempts = 5
	createTry      = 5 * time.Second
)

// createRetrying runs create (a create-or-open of a stream or bucket)
// again after a failure, a few times, 100 ms apart and more. Every node
// creates the crawl's streams and buckets at start, at the same moment;
// on a clustered server (Debian's nats-server 2.9.10, TestClusterOnNATSServers)
// the loser of two concurrent creates can get an error such as "subjects
// overlap with an existing stream" instead of the existing one, and the
// same call a moment later finds it. A context error is returned at once
// (with the last create's error when it came during a wait), and so is an
// error no later try can mend (see final). create gets the try's context.
func createRetrying[T any](ctx context.Context, create func(context.Context) (T, error)) (T, error) {
	var v T
	var err error
	for i := range createAttempts {
		tctx, cancel := context.WithTimeout(ctx, createTry)
		v, err = create(tctx)
		cancel()
		if err == nil || ctx.Err() != nil || final(err) {
			return v, err
		}
		if i == createAttempts-1 {
			break
		}
		t := time.NewTimer(time.Duration(i+1) * 100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
	return v, err
}

// final reports an error that trying again cannot mend: a cancelled start,
// a bucket another crawl set up differently, a server or account without
// JetStream, a name the server refuses.
func final(err error) bool {
	for _, f := range []error{context.Canceled, ErrMismatch, jetstream.ErrJetStreamNotEnabled,
		jetstream.ErrJetStreamNotEnabledForAccount, jetstream.ErrInvalidStreamName, jetstream.ErrInvalidBucketName} {
		if errors.Is(err, f) {
			return true
		}
	}
	return false
}

// openMode is what openStream and openKeyValue do with a stream or bucket
// that exists with other settings than asked for.
type openMode int

const (
	// updating (a node's) changes them to what the node asks for.
	updating openMode = iota
	// keeping (a client's, which asks with default settings) leaves them,
	// but refuses a different description (ErrMismatch): for the handoff
	// stream, that is a different shard count, and URLs published with
	// it would go to the wrong shards.
	keeping
)

func modeFor(client bool) openMode {
	if client {
		return keeping
	}
	return updating
}

// differs applies mode to an existing stream or bucket whose settings
// differ from those asked for: whether to update it, or the error that
// refuses it.
func (m openMode) differs(kind, name, gotDesc, wantDesc string) (bool, error) {
	if m == updating {
		return true, nil
	}
	if gotDesc != wantDesc {
		return false, fmt.Errorf("%s %s is %q, this config makes it %q: %w", kind, name, gotDesc, wantDesc, ErrMismatch)
	}
	return false, nil
}

// openStream opens the stream cfg names, creating it when missing, and
// updates it (mode allowing) only when it differs from cfg in what this
// node sets. Every
// node does this at start, so opening comes first: an update of a stream
// that did not change is not free on the server (nats-server 2.15.2 races
// a stream's config update against another node's consumer create, seen
// under -race), and a create that loses to another node's opens that
// node's stream.
func openStream(ctx context.Context, js jetstream.JetStream, mode openMode, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	return createRetrying(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		s, err := js.Stream(ctx, cfg.Name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			if s, err = js.CreateStream(ctx, cfg); errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				s, err = js.Stream(ctx, cfg.Name)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("open stream %s: %w", cfg.Name, err)
		}
		if got := s.CachedInfo().Config; got.Description != cfg.Description || !slices.Equal(got.Subjects, cfg.Subjects) ||
			got.Replicas != cfg.Replicas || got.Retention != cfg.Retention || got.Storage != cfg.Storage {
			if up, err := mode.differs("stream", cfg.Name, got.Description, cfg.Description); !up {
				return s, err
			}
			if s, err = js.UpdateStream(ctx, cfg); err != nil {
				return nil, fmt.Errorf("update stream %s: %w", cfg.Name, err)
			}
		}
		return s, nil
	})
}

// openKeyValue is openStream for a key-value bucket.
func openKeyValue(ctx context.Context, js jetstream.JetStream, mode openMode, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return createRetrying(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		kv, err := js.KeyValue(ctx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			if kv, err = js.CreateKeyValue(ctx, cfg); errors.Is(err, jetstream.ErrBucketExists) {
				kv, err = js.KeyValue(ctx, cfg.Bucket)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("open bucket %s: %w", cfg.Bucket, err)
		}
		st, err := kv.Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("bucket %s status: %w", cfg.Bucket, err)
		}
		if got := st.Config(); got.Description != cfg.Description || got.Replicas != cfg.Replicas || got.Storage != cfg.Storage {
			if up, err := mode.differs("bucket", cfg.Bucket, got.Description, cfg.Description); !up {
				return kv, err
			}
			if kv, err = js.UpdateKeyValue(ctx, cfg); err != nil {
				return nil, fmt.Errorf("update bucket %s: %w", cfg.Bucket, err)
			}
		}
		return kv, nil
	})
}
