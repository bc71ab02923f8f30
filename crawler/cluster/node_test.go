package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
)

// TestHostTimingEarliest: a new owner's first request to a host waits the
// delay in force on the previous owner, from the take-over and from its
// last request: the host's floor, raised by what the adaptive delay had
// learnt of its server (10 × 400 ms time to first byte, or 4 s of error
// delay, over a 1 s floor: 4 s), as this node's policy makes it.
func TestHostTimingEarliest(t *testing.T) {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	s := func(d float64) time.Duration { return time.Duration(d * float64(time.Second)) }
	policy := frontier.Adaptive{LatencyFactor: 10, ErrorBackoff: true, Max: 30 * time.Second}
	for _, c := range []struct {
		name   string
		timing hostTiming
		floor  time.Duration
		want   time.Duration // after the take-over
		off    bool          // the adaptive delay off on this node
	}{
		{"unknown host: the default delay", hostTiming{}, time.Second, time.Second, false},
		{"its interval when longer", hostTiming{Interval: 5}, time.Second, s(5), false},
		{"never less than the default", hostTiming{Interval: 0.2}, time.Second, time.Second, false},
		{"a last request before the take-over", hostTiming{LastRequest: at.Add(-3 * time.Second), Interval: 5}, time.Second, s(5), false},
		{"a last request stamped after it (clock skew)", hostTiming{LastRequest: at.Add(2 * time.Second), Interval: 5}, time.Second, s(7), false},
		{"a hold (Retry-After) longer still", hostTiming{Interval: 5, HoldUntil: at.Add(time.Minute)}, time.Second, time.Minute, false},
		{"a hold already over", hostTiming{Interval: 2, HoldUntil: at.Add(-time.Minute)}, time.Second, s(2), false},
		{"a learnt latency", hostTiming{Interval: 1, TTFBMs: 400}, time.Second, s(4), false},
		{"a learnt error delay", hostTiming{Interval: 1, ErrorDelayS: 4}, time.Second, s(4), false},
		{"learnt, from a last request stamped after the take-over", hostTiming{LastRequest: at.Add(2 * time.Second), Interval: 1, TTFBMs: 400}, time.Second, s(6), false},
		{"learnt, a last request before the take-over", hostTiming{LastRequest: at.Add(-3 * time.Second), Interval: 1, TTFBMs: 400}, time.Second, s(4), false},
		{"learnt, never less than the default", hostTiming{TTFBMs: 50}, time.Second, time.Second, false},
		{"learnt, below a longer floor", hostTiming{Interval: 5, TTFBMs: 200}, time.Second, s(5), false},
		{"learnt, capped at max_delay", hostTiming{Interval: 1, TTFBMs: 10_000, ErrorDelayS: 100}, time.Second, s(30), false},
		{"learnt, the adaptive delay off here", hostTiming{Interval: 1, TTFBMs: 400, ErrorDelayS: 4}, time.Second, s(1), true},
		{"learnt values no duration can be", hostTiming{Interval: 1, TTFBMs: -400, ErrorDelayS: -1}, time.Second, s(1), false},
		{"a learnt value too long: capped, not dropped", hostTiming{Interval: 1, ErrorDelayS: 1e300}, time.Second, s(30), false},
	} {
		p := policy
		if c.off {
			p = frontier.Adaptive{}
		}
		if got := c.timing.earliest(at, c.floor, p).Sub(at); got != c.want {
			t.Errorf("%s: earliest = take-over + %v, want + %v", c.name, got, c.want)
		}
	}
}

// TestHostTimingWire: an entry without the adaptive delay's state is
// written as nodes that never kept it wrote it (the new fields are
// omitted), and one they wrote reads as the floor alone.
func TestHostTimingWire(t *testing.T) {
	last := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	b, err := json.Marshal(hostTiming{Host: "h.example", LastRequest: last, Interval: 2})
	if err != nil {
		t.Fatal(err)
	}
	const old = `{"host":"h.example","last_request":"2026-11-25T12:00:00Z","interval_s":2}`
	if string(b) != old {
		t.Errorf("encoded %s, want %s", b, old)
	}
	var got hostTiming
	if err := json.Unmarshal([]byte(old), &got); err != nil || got.learnt() || got.Interval != 2 || !got.LastRequest.Equal(last) {
		t.Errorf("decoded %+v (learnt %v), %v; want the old fields, nothing learnt", got, got.learnt(), err)
	}
	if got.LastStatus != 0 || got.record().LastStatus != 0 {
		t.Errorf("decoded %+v: want no last status", got)
	}
	b, _ = json.Marshal(timingOf("h.example", storage.HostRecord{Interval: 1, TTFBMs: 400, ErrorDelayS: 2.5}))
	if err := json.Unmarshal(b, &got); err != nil || got.TTFBMs != 400 || got.ErrorDelayS != 2.5 || !got.learnt() {
		t.Errorf("%s decoded %+v, %v; want ttfb 400 ms, error delay 2.5 s", b, got, err)
	}
	// The host's last answer's status goes with it, alone or not, and
	// comes back in the record the new owner is given.
	b, _ = json.Marshal(timingOf("h.example", storage.HostRecord{Interval: 1, LastStatus: 503}))
	const withStatus = `{"host":"h.example","interval_s":1,"last_status":503}`
	if string(b) != withStatus {
		t.Errorf("encoded %s, want %s", b, withStatus)
	}
	got = hostTiming{}
	if err := json.Unmarshal(b, &got); err != nil || got.record().LastStatus != 503 || !got.learnt() {
		t.Errorf("%s decoded %+v (learnt %v), %v; want last status 503, learnt", b, got, got.learnt(), err)
	}
}

func TestDecodeWire(t *testing.T) {
	for _, c := range []struct {
		in      string
		wantURL string
		wantErr bool
	}{
		{`{"u":"http://a.example/x","d":2,"v":"link","p":"http://b.example/"}`, "http://a.example/x", false},
		{`{"u":"HTTP://A.example:80/x/../y"}`, "http://a.example/y", false},
		{`{"u":"ftp://a.example/"}`, "", true},
		{`{"u":""}`, "", true},
		{`not json`, "", true},
		{`{"u":"http://a.example/","d":"deep"}`, "", true},
	} {
		w, err := decodeWire([]byte(c.in))
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err %v, want error %v", c.in, err, c.wantErr)
			continue
		}
		if err == nil && w.URL != c.wantURL {
			t.Errorf("%s: URL %q, want %q", c.in, w.URL, c.wantURL)
		}
	}
}

// FuzzDecodeWire: a handed-off message is never trusted: decoding never
// panics, and what it accepts is a normal URL that survives a round trip.
func FuzzDecodeWire(f *testing.F) {
	f.Add([]byte(`{"u":"http://a.example/x","d":2,"v":"link","p":"http://b.example/","r":1,"m":"2026-01-02T00:00:00Z"}`))
	f.Add([]byte(`{"u":"http://[::1]:8080/%7e?q=1#f"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := decodeWire(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(toWire(w.candidate()))
		if err != nil {
			t.Fatal(err)
		}
		w2, err := decodeWire(again)
		if err != nil || w2.URL != w.URL || w2.Depth != w.Depth || w2.Via != w.Via || w2.Parent != w.Parent {
			t.Fatalf("round trip: %+v -> %s -> %+v, %v", w, again, w2, err)
		}
	})
}

// TestClientSeedAndSummary: seeds go to the crawl's shards once each (the
// same URL twice is one undecided URL), invalid ones are said so, and the
// summary counts them before any node runs.
func TestClientSeedAndSummary(t *testing.T) {
	srv := MustEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := Config{NATS: srv.ClientURL(), Name: "seeded", Node: "cli", Shards: 8, LeaseTTL: 2 * time.Second}
	cl, err := DialClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out, err := cl.Seed(ctx, []string{"http://a.example/", "HTTP://A.EXAMPLE/", "http://b.example/x", "mailto:x@y"})
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != "queued" || out[1] != "queued" || out[2] != "queued" || !strings.HasPrefix(out[3], "invalid: ") {
		t.Errorf("seed outcomes %q", out)
	}
	s, err := cl.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Undecided != 2 || len(s.Owners) != 0 || s.Shards != 8 {
		t.Errorf("summary %+v, want 2 undecided (one URL given twice), no owners, 8 shards", s)
	}
	want := map[string]int{"fetched": 0, "disallowed": 0, "failed": 0, "skipped": 0}
	if !maps.Equal(s.Counts, want) {
		t.Errorf("counts %v, want %v (every decided state, as standalone status)", s.Counts, want)
	}
}

// TestClientRecordAndOwner: a client reads one URL's decided record from
// the crawl's records bucket (compressed or not) and the node holding its
// host's shard, for why.
func TestClientRecordAndOwner(t *testing.T) {
	srv := MustEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := Config{NATS: srv.ClientURL(), Name: "lookup", Node: "cli", Shards: 8, LeaseTTL: 2 * time.Second}
	cl, err := DialClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, node, err := cl.Owner(ctx, "a.example:80"); err != nil || node != "" {
		t.Errorf("owner before any lease: %q, %v", node, err)
	}
	rec := []byte(`{"url":"http://a.example/","state":"fetched","status":200}`)
	if _, err := cl.records.Put(ctx, urlKey("http://a.example/"), rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := cl.Record(ctx, "http://a.example/")
	if err != nil || !ok || string(got) != string(rec) {
		t.Errorf("Record of a decided URL: %s, %v, %v", got, ok, err)
	}
	if _, ok, err := cl.Record(ctx, "http://a.example/other"); ok || err != nil {
		t.Errorf("Record of an undecided URL: %v, %v", ok, err)
	}
	leases, err := cl.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: LeasesBucket(cfg.Name)})
	if err != nil {
		t.Fatal(err)
	}
	shard := Shard("a.example:80", cfg.Shards)
	if _, err := leases.Put(ctx, shardKey(shard), []byte(`{"node":"node3","session":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if s, node, err := cl.Owner(ctx, "a.example:80"); err != nil || s != shard || node != "node3" {
		t.Errorf("Owner = %d, %q, %v; want %d, node3", s, node, err, shard)
	}
}

// TestNodeMetrics: a node's measurements are on the registry it is given.
func TestNodeMetrics(t *testing.T) {
	srv := MustEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := Config{NATS: srv.ClientURL(), Name: "metrics", Node: "m1", Shards: 4, LeaseTTL: 2 * time.Second}
	n, err := DialNode(ctx, cfg, NodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.nc.Close()
	reg := prometheus.NewRegistry()
	n.Register(reg)
	n.sent.Add(3)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		m := f.GetMetric()[0]
		if m.GetCounter() != nil {
			got[f.GetName()] = m.GetCounter().GetValue()
		} else {
			got[f.GetName()] = m.GetGauge().GetValue()
		}
	}
	for _, name := range []string{"politecrawl_cluster_shards_owned", "politecrawl_cluster_urls_held", "politecrawl_cluster_urls_sent_total",
		"politecrawl_cluster_urls_received_total", "politecrawl_cluster_duplicates_total", "politecrawl_cluster_lease_renewals_total"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no %s among %v", name, got)
		}
	}
	if got["politecrawl_cluster_urls_sent_total"] != 3 {
		t.Errorf("urls_sent_total = %v, want 3", got["politecrawl_cluster_urls_sent_total"])
	}
}

func TestRecordValue(t *testing.T) {
	links := func(n int, f func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	similar := links(10000, func(i int) string {
		return fmt.Sprintf("https://www.example.org/section/%d/article-%d.html?ref=home", i%50, i)
	})
	random := links(20000, func(i int) string {
		b := make([]byte, 48)
		rand.Read(b)
		return "https://x.example/" + hex.EncodeToString(b)
	})
	for _, c := range []struct {
		name       string
		rec        storage.URLRecord
		compressed bool
		tooBig     bool
	}{
		{"small: plain JSON", storage.URLRecord{URL: "http://a.example/", State: storage.Fetched, Links: []string{"http://a.example/x"}}, false, false},
		{"10,000 similar links: compressed", storage.URLRecord{URL: "http://a.example/", State: storage.Fetched, Links: similar}, true, false},
		{"20,000 random links: too big even compressed", storage.URLRecord{URL: "http://a.example/", State: storage.Fetched, Links: random}, false, true},
	} {
		b, err := encodeRecord(&c.rec)
		if c.tooBig {
			if !errors.Is(err, errRecordTooBig) {
				t.Errorf("%s: err %v, want errRecordTooBig", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(b) > maxRecordEntry || (b[0] == 0x1f) != c.compressed {
			t.Errorf("%s: %d bytes, compressed %v", c.name, len(b), b[0] == 0x1f)
		}
		j, err := decodeRecordValue(b)
		if err != nil {
			t.Fatalf("%s: decode: %v", c.name, err)
		}
		var got storage.URLRecord
		if err := json.Unmarshal(j, &got); err != nil || got.URL != c.rec.URL || len(got.Links) != len(c.rec.Links) {
			t.Errorf("%s: round trip: %v, %d links", c.name, err, len(got.Links))
		}
	}
	if _, err := decodeRecordValue([]byte{0x1f, 0x8b, 1, 2, 3}); err == nil {
		t.Error("a damaged compressed value decoded")
	}
}

// FuzzRecordValue: a value read from the records bucket never panics the
// reader and never expands without bound.
func FuzzRecordValue(f *testing.F) {
	b, _ := encodeRecord(&storage.URLRecord{URL: "http://a.example/", Links: make([]string, 5000)})
	f.Add(b)
	f.Add([]byte(`{"url":"http://a.example/"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := decodeRecordValue(b)
		if err == nil && len(out) > maxRecordJSON {
			t.Fatalf("expanded to %d bytes", len(out))
		}
	})
}
