package extract

import (
	"fmt"
	"reflect"
	"testing"
)

// TestDistinct: each string once, in the order first added, below and
// past the size at which distinct starts to keep a map.
func TestDistinct(t *testing.T) {
	for _, n := range []int{0, 1, distinctScan, distinctScan + 1, 3 * distinctScan} {
		var d distinct
		var want []string
		for i := 0; i < 2*n; i++ {
			s := fmt.Sprint(i % n) // every string twice
			if i < n {
				if d.has(s) {
					t.Fatalf("n=%d: %q held before it was added", n, s)
				}
				want = append(want, s)
				d.add(s)
			} else if !d.has(s) {
				t.Fatalf("n=%d: %q added but not held", n, s)
			}
		}
		if !reflect.DeepEqual(d.items, want) || d.has("x") {
			t.Errorf("n=%d: items %v, want %v", n, d.items, want)
		}
	}
}
