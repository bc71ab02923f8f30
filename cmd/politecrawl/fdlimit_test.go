package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestFitIdleConns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		workers int
		limit   uint64
		known   bool
		want    int
		warned  bool
	}{
		{"fits", 4096, 32, 1 << 20, true, 4096, false},
		{"zero is no keep-alive", 0, 32, 1 << 20, true, -1, false},
		{"limit unknown: as set", 4096, 32, 0, false, 4096, false},
		{"lowered to the limit's room", 4096, 32, 4096, true, 4096 - fdReserve - 64, true},
		{"exactly the room", 4096 - fdReserve - 64, 32, 4096, true, 4096 - fdReserve - 64, false},
		{"no room: no keep-alive", 4096, 32, 256, true, -1, true},
		{"huge limit", 100, 1, ^uint64(0), true, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			got := fitIdle(tc.n, tc.workers, tc.limit, tc.known, slog.New(slog.NewTextHandler(&buf, nil)))
			if got != tc.want {
				t.Errorf("fitIdle(%d, %d workers, limit %d) = %d, want %d", tc.n, tc.workers, tc.limit, got, tc.want)
			}
			if warned := strings.Contains(buf.String(), "network.idle_connections lowered"); warned != tc.warned {
				t.Errorf("warned %v, want %v: %q", warned, tc.warned, buf.String())
			}
		})
	}
}
