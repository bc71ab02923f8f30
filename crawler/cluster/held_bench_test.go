package cluster

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkHeldMessages measures what a node keeps in memory per URL it
// holds undecided: its entry in the held map (the URL and the delivery's
// reply subject), as a node holding a shard's queue does.
func BenchmarkHeldMessages(b *testing.B) {
	const n = 20000
	srv := MustEmbedded(b)
	_, js := MustJetStream(b, srv.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := NewHandoff(ctx, js, "held", 1, HandoffOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var futures []jetstream.PubAckFuture
	for i := range n {
		url := fmt.Sprintf("https://host-%d.example/some/path/page-%d.html?q=%d", i%500, i, i)
		f, err := js.PublishAsync(h.subject(0), []byte(`{"u":"`+url+`","d":3,"v":"link","p":"https://host-1.example/parent/page.html"}`))
		if err != nil {
			b.Fatal(err)
		}
		futures = append(futures, f)
	}
	if err := wait(ctx, futures); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cons, err := h.takeOver(ctx, 0)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		held := make(map[string]heldMsg)
		for len(held) < n {
			msgs, err := fetchSome(ctx, cons)
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range msgs {
				w, err := decodeWire(m.Data())
				if err != nil {
					b.Fatal(err)
				}
				held[w.URL] = heldMsg{reply: m.Reply()}
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/held")
		runtime.KeepAlive(held)
	}
}
