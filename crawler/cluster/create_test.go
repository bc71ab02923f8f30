package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestCreateRetrying(t *testing.T) {
	overlap := errors.New("nats: API error: code=400 err_code=10065 description=subjects overlap with an existing stream")
	for _, tc := range []struct {
		name      string
		fails     int   // calls that fail before one succeeds
		err       error // what they fail with
		cancel    bool  // the context is cancelled before the first call
		wantCalls int
		wantErr   bool
		wantTime  time.Duration
	}{
		{"first try", 0, overlap, false, 1, false, 0},
		{"a concurrent create lost twice", 2, overlap, false, 3, false, 300 * time.Millisecond},
		{"gives up after five", 100, overlap, false, createAttempts, true, 1000 * time.Millisecond},
		{"a mismatch is final", 100, fmt.Errorf("bucket x: %w", ErrMismatch), false, 1, true, 0},
		{"a cancelled start is final", 100, context.Canceled, true, 1, true, 0},
		{"no JetStream is final", 100, fmt.Errorf("open stream x: %w", jetstream.ErrJetStreamNotEnabled), false, 1, true, 0},
		{"a bad name is final", 100, jetstream.ErrInvalidBucketName, false, 1, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.cancel {
					cancel()
				}
				calls := 0
				start := time.Now()
				v, err := createRetrying(ctx, func(context.Context) (int, error) {
					calls++
					if calls <= tc.fails {
						return 0, tc.err
					}
					return 42, nil
				})
				if calls != tc.wantCalls || (err != nil) != tc.wantErr || err == nil && v != 42 {
					t.Errorf("%d calls, %v, %v; want %d calls, error %v", calls, v, err, tc.wantCalls, tc.wantErr)
				}
				if d := time.Since(start); d != tc.wantTime {
					t.Errorf("took %v, want %v", d, tc.wantTime)
				}
			})
		})
	}
}

// TestCreateRetryingCancelledDuringWait: Ctrl-C while a node waits to try
// again says it was cancelled, not only what the last try said.
func TestCreateRetryingCancelledDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := createRetrying(ctx, func(context.Context) (int, error) { return 0, errors.New("subjects overlap") })
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "subjects overlap") {
			t.Errorf("err = %v, want context.Canceled and the last try's error", err)
		}
	})
}

// TestOpenStreamAndBucket: nodes starting together open the crawl's
// streams and buckets, creating them once; a node starting with the same
// settings changes nothing on the server (no update request: on
// nats-server 2.15.2 an update races other nodes' consumer creates), and
// one starting with changed settings updates them.
func TestOpenStreamAndBucket(t *testing.T) {
	srv := MustEmbedded(t)
	nc, js := MustJetStream(t, srv.ClientURL())
	// A synchronous subscription: its messages are queued by the
	// connection's reader in order, before the PONG that ends a flush, so
	// after FlushTimeout every update request sent so far is pending. (A
	// handler ran on a goroutine of its own, and the count read after a
	// flush could still miss the last one: "sent 1, want 2".)
	sub, err := nc.SubscribeSync("$JS.API.STREAM.UPDATE.>")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream := jetstream.StreamConfig{Name: "S", Description: "d1", Subjects: []string{"s.*"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: 1}
	bucket := jetstream.KeyValueConfig{Bucket: "B", Description: "d1", Storage: jetstream.FileStorage, Replicas: 1}
	// flushed makes sure the server has routed every request made so far
	// to the test's subscription.
	flushed := func() int64 {
		t.Helper()
		if err := nc.FlushTimeout(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		n, _, err := sub.Pending()
		if err != nil {
			t.Fatal(err)
		}
		return int64(n)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := openStream(ctx, js, updating, stream); err != nil {
				t.Errorf("open stream: %v", err)
			}
			if _, err := openKeyValue(ctx, js, updating, bucket); err != nil {
				t.Errorf("open bucket: %v", err)
			}
		})
	}
	wg.Wait()
	if n := flushed(); n != 0 {
		t.Errorf("three nodes starting together sent %d update requests, want 0", n)
	}
	for range 2 {
		if _, err := openStream(ctx, js, updating, stream); err != nil {
			t.Fatal(err)
		}
		if _, err := openKeyValue(ctx, js, updating, bucket); err != nil {
			t.Fatal(err)
		}
	}
	if n := flushed(); n != 0 {
		t.Errorf("reopening with the same settings sent %d update requests, want 0", n)
	}
	stream.Description, bucket.Description = "d2", "d2"
	s, err := openStream(ctx, js, updating, stream)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := openKeyValue(ctx, js, updating, bucket)
	if err != nil {
		t.Fatal(err)
	}
	if n := flushed(); n != 2 {
		t.Errorf("changed settings sent %d update requests, want 2 (stream and bucket)", n)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := []string{s.CachedInfo().Config.Description, st.Config().Description}, []string{"d2", "d2"}; !slices.Equal(got, want) {
		t.Errorf("descriptions after the change: %q, want %q", got, want)
	}
	names := js.StreamNames(ctx)
	var all []string
	for n := range names.Name() {
		all = append(all, n)
	}
	slices.Sort(all)
	if want := []string{"KV_B", "S"}; !slices.Equal(all, want) {
		t.Errorf("streams on the server: %q, want %q", all, want)
	}
}

// TestClientKeepsTheCrawlsSettings: status, seed and export open the
// crawl's buckets and handoff stream as a client. On a crawl whose nodes
// keep 3 replicas, a client must not scale them down to its default of 1
// (the next node start scaled them back: they flipped with every status);
// and a client configured with another shard count is refused rather than
// rewriting the stream (its seeds would go to the wrong shards).
func TestClientKeepsTheCrawlsSettings(t *testing.T) {
	urls := MustEmbeddedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, js := MustJetStream(t, urls[0])
	if _, _, _, err := crawlBuckets(ctx, js, "c", 3, false); err != nil {
		t.Fatal(err)
	}
	if _, err := NewHandoff(ctx, js, "c", 8, HandoffOptions{Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	records, _, _, err := crawlBuckets(ctx, js, "c", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandoff(ctx, js, "c", 8, HandoffOptions{Client: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := records.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := h.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Config().Replicas != 3 || info.Config.Replicas != 3 {
		t.Errorf("after a client's open: records bucket %d replicas, handoff stream %d; want 3 and 3", st.Config().Replicas, info.Config.Replicas)
	}
	if _, err := NewHandoff(ctx, js, "c", 16, HandoffOptions{Client: true}); !errors.Is(err, ErrMismatch) {
		t.Errorf("a client with shards=16 on a crawl of 8: %v, want ErrMismatch", err)
	}
	if info, err := h.stream.Info(ctx); err != nil || info.Config.Description != bucketDescription(8) {
		t.Errorf("handoff stream after the refused client: %q (%v), want %q", info.Config.Description, err, bucketDescription(8))
	}
}

// TestCreateRetryingCutsAnUnansweredTry: a try whose answer never comes
// (nats-server 2.9.10 clustered, now and then, for the loser of
// concurrent creates) is cut after createTry and tried again, rather than
// holding the node's start until its deadline.
func TestCreateRetryingCutsAnUnansweredTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		calls := 0
		start := time.Now()
		v, err := createRetrying(ctx, func(ctx context.Context) (int, error) {
			if calls++; calls == 1 {
				<-ctx.Done() // no answer
				return 0, ctx.Err()
			}
			return 42, nil
		})
		if err != nil || v != 42 || calls != 2 {
			t.Errorf("%d calls, %v, %v; want 2 calls, 42", calls, v, err)
		}
		if d, want := time.Since(start), createTry+100*time.Millisecond; d != want {
			t.Errorf("took %v, want %v (one try's limit and the first wait)", d, want)
		}
	})
}
