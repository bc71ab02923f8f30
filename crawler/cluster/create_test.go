package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
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
				v, err := createRetrying(ctx, func() (int, error) {
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
		_, err := createRetrying(ctx, func() (int, error) { return 0, errors.New("subjects overlap") })
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "subjects overlap") {
			t.Errorf("err = %v, want context.Canceled and the last try's error", err)
		}
	})
}
