package frontier

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestOutlinks: links normalised and deduplicated in document order up to
// the cap, the rest counted; unusable links kept (cut) up to a bound, the
// rest counted.
func TestOutlinks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		links     []string
		max       int
		want      []string
		dropped   int
		bad, more int
	}{
		{"normal forms, each once", []string{"HTTP://A.test/x", "http://a.test/x", "http://a.test:80/y"}, 10,
			[]string{"http://a.test/x", "http://a.test/y"}, 0, 0, 0},
		{"past the cap, counted", []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"}, 2,
			[]string{"http://a.test/1", "http://a.test/2"}, 1, 0, 0},
		{"unusable, recorded", []string{"mailto:x@y", "http://a.test/"}, 10, []string{"http://a.test/"}, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Outlinks
			o.Normalise(tc.links, tc.max)
			if !slices.Equal(o.URLs, tc.want) || o.Dropped != tc.dropped || len(o.Bad) != tc.bad || o.BadMore != tc.more {
				t.Errorf("got %v dropped %d bad %v more %d", o.URLs, o.Dropped, o.Bad, o.BadMore)
			}
		})
	}
	var o Outlinks
	for i := range maxBadLinks + 5 {
		o.AddBad(fmt.Sprintf("bad%d:%s", i, strings.Repeat("x", UnusablePrefix)), "why")
	}
	if len(o.Bad) != maxBadLinks || o.BadMore != 5 || len(o.Bad[0].URL) != UnusablePrefix+3 {
		t.Errorf("%d kept, %d counted, the first cut to %d bytes; want %d, 5, %d", len(o.Bad), o.BadMore, len(o.Bad[0].URL), maxBadLinks, UnusablePrefix+3)
	}
}
