package robotswait

import (
	"bytes"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
)

// fakeHosts is the frontier's side: which hosts have queued work, listed
// in an order that changes from call to call, as a map's does (the same
// waits must still be said once).
type fakeHosts map[string]bool

var listed int

func (f fakeHosts) Hosts(fn func(host string)) {
	hosts := slices.Sorted(maps.Keys(f))
	if listed++; listed%2 == 0 {
		slices.Reverse(hosts)
	}
	for _, h := range hosts {
		fn(h)
	}
}
func (f fakeHosts) HasWork(host string) bool { return f[host] }

func TestNote(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		unreach    []string // origins whose robots.txt is retrying
		work       fakeHosts
		wantNotice bool
	}{
		{"every host with work waits on robots.txt", []string{"http://a.test", "http://b.test"},
			fakeHosts{"a.test": true, "b.test": true}, true},
		{"another host has work", []string{"http://a.test"},
			fakeHosts{"a.test": true, "c.test": true}, false},
		{"no robots.txt retrying", nil, fakeHosts{"a.test": true}, false},
		{"retrying hosts have no work", []string{"http://a.test"}, fakeHosts{"a.test": false}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := robotscache.NewCache(robotscache.Policy{Retries: 3, RetryBase: time.Minute, MaxHold: time.Hour})
			for _, o := range tc.unreach {
				cache.Unreachable(o, robotscache.Result{Outcome: robotscache.Unreachable, Err: errors.New("refused")}, now, now)
			}
			var logs bytes.Buffer
			n := &Notice{Log: slog.New(slog.NewTextHandler(&logs, nil)), Robots: cache, Hosts: tc.work, Retries: 3}
			n.Note(now)
			n.Note(now) // the same list is said once
			got := strings.Count(logs.String(), "only waiting on unreachable robots.txt")
			if want := map[bool]int{true: 1, false: 0}[tc.wantNotice]; got != want {
				t.Fatalf("notices = %d, want %d; log:\n%s", got, want, logs.String())
			}
			if tc.wantNotice {
				for _, o := range tc.unreach {
					if h := strings.TrimPrefix(o, "http://"); !strings.Contains(logs.String(), h+" (retry 1 of 3") {
						t.Errorf("notice does not name %s with its attempt:\n%s", h, logs.String())
					}
				}
			}
		})
	}
}
