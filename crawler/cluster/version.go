package cluster

import (
	"fmt"
	"strconv"
	"strings"
)

// minReplicatedServer is the first nats-server release known to make the
// compare-and-set of a replicated (R3) stream serializable: before PR 4319
// (2.9.21) two concurrent writes expecting the same revision could both
// succeed, and before PR 5794 (August 2024) a create (expected revision 0)
// could leave replicas diverged. With such a server two nodes can both
// create one lease: TestCreateIsExclusive measured it on Debian bookworm's
// 2.9.10 (70 of 200 rounds of three concurrent creates let two succeed).
// Single-replica buckets check the revision under the stream's lock and
// are safe on any JetStream server.
var minReplicatedServer = [3]int{2, 11, 0}

// replicasSafe reports whether a bucket with replicas replicas can hold
// leases on a server of version v ("2.9.10"), and if not, why.
func replicasSafe(v string, replicas int) error {
	if replicas <= 1 || versionAtLeast(v, minReplicatedServer) {
		return nil
	}
	return fmt.Errorf("nats-server %s does not serialize compare-and-set on replicated streams (want %d.%d.%d or later, or 1 replica): %w",
		v, minReplicatedServer[0], minReplicatedServer[1], minReplicatedServer[2], ErrUnsafeServer)
}

// versionAtLeast compares a "major.minor.patch[-suffix]" version with min;
// an unparsable version is not at least anything.
func versionAtLeast(v string, min [3]int) bool {
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		if n != min[i] {
			return n > min[i]
		}
	}
	return true
}
