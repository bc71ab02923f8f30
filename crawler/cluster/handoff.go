package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// HandoffOptions tune a Handoff; every zero value has a use.
type HandoffOptions struct {
	// AckWait is how long a delivered batch may stay unacknowledged before
	// the server delivers it again (default 30s): it must exceed the longest
	// commit, by a quarter of itself (the wait for a batch to fill). A new
	// owner after a crash gets the dead owner's unacknowledged URLs after
	// this long.
	AckWait time.Duration
	// Batch is the most URLs handed to one commit (default 256).
	Batch int
	// Replicas of the stream (default 1): set when this node creates it,
	// and changed to this when it exists with other settings.
	Replicas int
	// Client opens the stream for a client (status, seed, export): it is
	// created if missing, but an existing one is left as the nodes set it
	// (its replicas above all), and one set up for another shard count
	// is refused (ErrMismatch) rather than rewritten.
	Client bool
}

// Handoff moves URLs durably to the shard that owns their host: any node
// publishes a URL found for a foreign shard, and the shard's owner consumes
// them and acknowledges only after its own commit, so a URL is lost neither
// when the owner dies before committing (it is delivered again, to the next
// owner) nor when the publisher dies after publishing.
//
// One stream per crawl (politecrawl_<crawl>_handoff) holds the subjects
// politecrawl.<crawl>.shard.<n>, with work-queue retention: a message is
// removed once acknowledged. Each shard has one durable consumer, shard-<n>,
// that outlives its owners. Delivery is at least once: the owner's commit
// must be idempotent (a URL already in its seen set is skipped).
//
// A Handoff is safe for concurrent use.
type Handoff struct {
	js      jetstream.JetStream
	crawl   string
	shards  int
	stream  jetstream.Stream
	ackWait time.Duration
	batch   int
}

// HandoffStream names the crawl's handoff stream.
func HandoffStream(crawl string) string { return "politecrawl_" + crawl + "_handoff" }

// NewHandoff creates or opens the crawl's handoff stream.
func NewHandoff(ctx context.Context, js jetstream.JetStream, crawl string, shards int, opts HandoffOptions) (*Handoff, error) {
	h := &Handoff{js: js, crawl: crawl, shards: shards, ackWait: opts.AckWait, batch: opts.Batch}
	if h.ackWait <= 0 {
		h.ackWait = 30 * time.Second
	}
	if h.batch <= 0 {
		h.batch = 256
	}
	stream, err := openStream(ctx, js, modeFor(opts.Client), jetstream.StreamConfig{
		Name:        HandoffStream(crawl),
		Description: bucketDescription(shards),
		Subjects:    []string{fmt.Sprintf("politecrawl.%s.shard.*", crawl)},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    max(opts.Replicas, 1),
	})
	if err != nil {
		return nil, fmt.Errorf("handoff stream %s: %w", HandoffStream(crawl), err)
	}
	h.stream = stream
	return h, nil
}

func (h *Handoff) subject(shard int) string {
	return fmt.Sprintf("politecrawl.%s.shard.%d", h.crawl, shard)
}

// Publish hands url to shard's owner. It returns once the server has
// stored it: from then on it survives this node.
func (h *Handoff) Publish(ctx context.Context, shard int, url string) error {
	if shard < 0 || shard >= h.shards {
		return fmt.Errorf("handoff: shard %d out of range [0, %d)", shard, h.shards)
	}
	if _, err := h.js.Publish(ctx, h.subject(shard), []byte(url)); err != nil {
		return fmt.Errorf("handoff publish to shard %d: %w", shard, err)
	}
	return nil
}

// Consume hands shard's URLs to commit in batches until ctx ends (cancel it
// on Lost) and acknowledges a batch only after commit returned nil. Commit
// should check Manager.Holds in its transaction: a batch committed by a node
// that no longer owns the shard must be refused, to come again to the owner. A batch
// whose commit fails is delivered again after AckWait, to this node or the
// shard's next owner. Consume returns ctx's error, or an error if it cannot
// reach the shard's consumer.
func (h *Handoff) Consume(ctx context.Context, shard int, commit func(ctx context.Context, urls []string) error) error {
	cons, err := h.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       fmt.Sprintf("shard-%d", shard),
		FilterSubject: h.subject(shard),
		AckPolicy:     jetstream.AckExplicitPolicy, // work queues require it
		AckWait:       h.ackWait,
		MaxAckPending: h.batch,
	})
	if err != nil {
		return fmt.Errorf("handoff consumer for shard %d: %w", shard, err)
	}
	for ctx.Err() == nil {
		msgs, err := h.fetch(ctx, cons)
		if err != nil {
			pause(ctx, 100*time.Millisecond) // the server is out of reach: ask again soon
			continue
		}
		if len(msgs) == 0 {
			continue // nothing yet
		}
		urls := make([]string, len(msgs))
		for i, msg := range msgs {
			urls[i] = string(msg.Data())
		}
		if err := commit(ctx, urls); err != nil {
			continue // not acknowledged: delivered again after AckWait
		}
		ack(ctx, msgs)
	}
	return ctx.Err()
}

// ack acknowledges a committed batch: each message, and the last one with a
// confirmation, which, as the server handles one connection's messages in
// order, confirms them all. A stop (ctx cancelled) does not cut it short: the
// batch is committed. A lost ack means a delivery again, which the
// idempotent commit absorbs.
func ack(ctx context.Context, msgs []jetstream.Msg) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, msg := range msgs[:len(msgs)-1] {
		_ = msg.Ack()
	}
	_ = msgs[len(msgs)-1].DoubleAck(ctx)
}

// fetch waits for a batch of messages, up to a second or a quarter of
// AckWait (messages delivered early in the wait are already on the AckWait
// clock); none is not an error.
func (h *Handoff) fetch(ctx context.Context, cons jetstream.Consumer) ([]jetstream.Msg, error) {
	fctx, cancel := context.WithTimeout(ctx, min(time.Second, h.ackWait/4))
	defer cancel()
	batch, err := cons.Fetch(h.batch, jetstream.FetchContext(fctx))
	if err != nil {
		return nil, err
	}
	var msgs []jetstream.Msg
	for msg := range batch.Messages() {
		msgs = append(msgs, msg)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, jetstream.ErrNoMessages) {
		return nil, err // not acknowledged: delivered again after AckWait
	}
	return msgs, nil
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// heldAckWait is how long a node may hold a URL's message before the
// server hands it out again: a URL's message stays unacknowledged from
// admission to decision, which a host's queue can make long. A shard's new
// owner does not wait for it: takeOver recreates the consumer.
const heldAckWait = time.Hour

// takeOver gives a shard's new owner every undecided message of the shard
// at once: it recreates the shard's consumer, so that the messages the
// previous owner held unacknowledged are delivered again now rather than
// after their ack wait. Acks of the previous owner fail from here on.
func (h *Handoff) takeOver(ctx context.Context, shard int) (jetstream.Consumer, error) {
	name := fmt.Sprintf("shard-%d", shard)
	if err := h.stream.DeleteConsumer(ctx, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("handoff: reset consumer for shard %d: %w", shard, err)
	}
	cons, err := h.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       name,
		FilterSubject: h.subject(shard),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       heldAckWait,
		MaxAckPending: -1,
	})
	if err != nil {
		return nil, fmt.Errorf("handoff consumer for shard %d: %w", shard, err)
	}
	return cons, nil
}

// Pending reports how many URLs of the whole crawl are undecided: the
// messages in the handoff stream (a message goes when its URL is decided).
func (h *Handoff) Pending(ctx context.Context) (uint64, error) {
	info, err := h.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("handoff stream: %w", err)
	}
	return info.State.Msgs, nil
}
