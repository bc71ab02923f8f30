package cluster

import "fmt"

// EventKind says what happened to a shard.
type EventKind int

const (
	// Acquired: this node now owns the shard and may serve its hosts until
	// Lost, checking Manager.Holds before each unit of work.
	Acquired EventKind = iota + 1
	// Lost: this node must stop serving the shard's hosts at once. It comes
	// before the lease can pass to another node (see the package doc).
	Lost
)

func (k EventKind) String() string {
	switch k {
	case Acquired:
		return "acquired"
	case Lost:
		return "lost"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event reports a change of ownership of one shard on this node.
type Event struct {
	Kind  EventKind
	Shard int
	// Token is the fencing token of this ownership: the revision at which the
	// lease was created. Tokens of successive owners of a shard strictly
	// increase, so state written under a token can be refused once a newer
	// one has written.
	Token uint64
	// Reason says why a shard was lost: "released" (Run stopped), "surplus"
	// (handed over to a node below its fair share), "expired" (not renewed in
	// time) or "taken" (the lease was found changed by someone else).
	Reason string
}

func (e Event) String() string {
	if e.Reason != "" {
		return fmt.Sprintf("%s shard %d token %d (%s)", e.Kind, e.Shard, e.Token, e.Reason)
	}
	return fmt.Sprintf("%s shard %d token %d", e.Kind, e.Shard, e.Token)
}
