package frontier

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/storage"
)

// BenchmarkAdmit is the frontier's part of admitting one page's links on
// the crawl benchmarks' web (two new pages of its host, the root of the
// next host, seen before), robots.txt verdicts asked, in transactions of
// 200 pages. One op is one page.
func BenchmarkAdmit(b *testing.B) {
	const hosts = 50
	var names []string
	for h := range hosts {
		names = append(names, fmt.Sprintf("h%d.test", h))
	}
	scope, _ := hostScope(names)
	f := New[string](Options{Scope: scope, Limits: DefaultLimits(), Delays: DelayPolicy{Default: time.Second, Max: time.Minute},
		Robots: refusePrivate{}, Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	d := mustDB(b)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	page := func(h, i int) string { return fmt.Sprintf("http://%s/p/%d", names[h%hosts], i) }
	b.ReportAllocs()
	var batch *storage.Batch
	n := 0
	for b.Loop() {
		if n%200 == 0 {
			if batch != nil {
				if err := batch.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			var err error
			if batch, err = d.Begin(); err != nil {
				b.Fatal(err)
			}
		}
		h, i := n%hosts, n/hosts
		n++
		err := batch.Do(func(tx *storage.Tx) error {
			for _, l := range []string{page(h, 2*i+1), page(h, 2*i+2), page(h+1, 0)} {
				if _, err := f.Discover(tx, Candidate{URL: l, Depth: 1, Via: "link", Parent: page(h, i)}, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
}
