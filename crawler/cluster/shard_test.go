package cluster

import "testing"

// The expected values were computed outside Go (FNV-1a 64 written out in
// Python: offset basis 0xcbf29ce484222325, prime 0x100000001b3), so a change
// of hash, of case folding or of reduction fails here.
func TestShard(t *testing.T) {
	tests := []struct {
		host   string
		shards int
		want   int
	}{
		{"", 64, 37},                          // 0xcbf29ce484222325, the offset basis
		{"a", 64, 12},                         // 0xaf63dc4c8601ec8c, the published vector
		{"example.org:443", 64, 6},            // 0x3e81042e0be1a7c6
		{"EXAMPLE.ORG:443", 64, 6},            // lower-cased first
		{"example.org:443", 7, 6},             //
		{"www.example.org:80", 64, 30},        // 0x52e3878164b92a9e
		{"www.example.org:80", 7, 2},          //
		{"127.0.0.1:8080", 64, 12},            // 0x1cf0caae52b457cc
		{"127.0.0.1:8080", 7, 3},              //
		{"xn--bcher-kva.example:443", 64, 27}, // 0x02f5227d2c5f739b
		{"[::1]:9000", 64, 39},                // 0x202b395f31d264a7
		{"[::1]:9000", 1, 0},                  // one shard holds everything
	}
	for i, tt := range tests {
		if got := Shard(tt.host, tt.shards); got != tt.want {
			t.Errorf("step %d: Shard(%q, %d) = %d, want %d", i, tt.host, tt.shards, got, tt.want)
		}
	}
}

func TestShardKey(t *testing.T) {
	for _, n := range []int{0, 7, 63, 9999} {
		key := shardKey(n)
		if got, ok := keyShard(key, maxShards); !ok || got != n {
			t.Errorf("keyShard(shardKey(%d) = %q) = %d, %v", n, key, got, ok)
		}
	}
	for _, key := range []string{"s0064", "x0001", "s001", "s00a1", "s00001"} {
		if n, ok := keyShard(key, 64); ok {
			t.Errorf("keyShard(%q, 64) = %d, true; want false", key, n)
		}
	}
}

func BenchmarkShard(b *testing.B) {
	for b.Loop() {
		Shard("www.example.org:443", 64)
	}
}
