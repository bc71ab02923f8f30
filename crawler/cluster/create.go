package cluster

import (
	"context"
	"errors"
	"time"
)

// createAttempts bounds createRetrying.
const createAttempts = 5

// createRetrying runs create (a create-or-open of a stream or bucket)
// again after a failure, a few times, 100 ms apart and more. Every node
// creates the crawl's streams and buckets at start, at the same moment;
// on a clustered server (Debian's nats-server 2.9.10, TestClusterOnNATSServers)
// the loser of two concurrent creates can get an error such as "subjects
// overlap with an existing stream" instead of the existing one, and the
// same call a moment later finds it. A context error is returned at once
// (with the last create's error when it came during a wait).
func createRetrying[T any](ctx context.Context, create func() (T, error)) (T, error) {
	var v T
	var err error
	for i := range createAttempts {
		if v, err = create(); err == nil || ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrMismatch) {
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
