package robots

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// These tests bound time generously: they catch quadratic blow-ups (which
// take minutes), not speed regressions (benchmarks track those).
func within(t *testing.T, limit time.Duration, name string, fn func()) {
	t.Helper()
	limit *= raceSlowdown
	start := time.Now()
	fn()
	if d := time.Since(start); d > limit {
		t.Errorf("%s took %v, want under %v", name, d, limit)
	}
}

func TestHostileInput(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	binary := make([]byte, 10<<20)
	for i := range binary {
		binary[i] = byte(rng.Uint32())
	}
	within(t, 5*time.Second, "10 MB of binary", func() {
		r := Parse(binary)
		_ = r.Allowed("FooBot", "/x")
	})

	within(t, 5*time.Second, "1 MB single line", func() {
		r := Parse([]byte("User-agent: *\nDisallow: /" + strings.Repeat("a", 1<<20)))
		if !r.Allowed("FooBot", "/a") {
			t.Error("a rule cut by the size limit must be dropped")
		}
	})

	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < MaxSize-100; i++ {
		b.WriteString("Disallow: /")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("*q\n")
	}
	many := b.String()
	within(t, 5*time.Second, "40,000+ rules", func() {
		r := Parse([]byte(many))
		for i := 0; i < 1000; i++ {
			r.Allowed("FooBot", "/xxxxxxx/"+strings.Repeat("z", i%50))
		}
	})

	pattern := "/" + strings.Repeat("*a", 5000) + "$"
	path := "/" + strings.Repeat("a", 20000) + "b"
	within(t, 5*time.Second, "pathological wildcards", func() {
		r := Parse([]byte("User-agent: *\nDisallow: " + pattern + "\n"))
		for i := 0; i < 100; i++ {
			if !r.Allowed("FooBot", path) {
				t.Fatal("a path not ending in 'a' matched an anchored pattern")
			}
		}
		if r.Allowed("FooBot", path[:len(path)-1]) {
			t.Error("should match")
		}
	})

	// Thousands of agents sharing one huge group must not multiply memory:
	// merges are built only for agents that are asked about.
	var agents strings.Builder
	for i := 0; agents.Len() < MaxSize/2; i++ {
		agents.WriteString("User-agent: a")
		agents.WriteString(strings.Repeat("b", i%20))
		agents.WriteString("\nUser-agent: big\n")
		if i%2 == 0 {
			agents.WriteString("Disallow: /\n")
		}
	}
	within(t, 5*time.Second, "many agents", func() {
		r := Parse([]byte(agents.String()))
		_ = r.Allowed("ab", "/x")
	})
}

func TestUnboundedLinesDoNotGrowMemory(t *testing.T) {
	// scanLines keeps at most maxLineLen bytes of any line.
	var longest int
	scanLines([]byte("a\n"+strings.Repeat("b", 100000)+"\nc"), func(_ int, line []byte) {
		longest = max(longest, len(line))
	})
	if longest != maxLineLen {
		t.Errorf("longest line %d, want %d", longest, maxLineLen)
	}
}
