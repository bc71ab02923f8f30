package storage

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRecordPage is the storage work of recording one fetched page
// of the crawl benchmarks' web (crawltest.AddTree: 50 hosts, each page
// linking two new pages of its host and the root of the next host), in
// transactions of 200 pages as group commit makes them: read the page's
// record, admit its links (Seen; PutURL and Enqueue for the new ones),
// write the record, dequeue it, store its body and its host's record.
// One op is one page, its share of the commit included; allocs/op is
// the figure to compare.
func BenchmarkRecordPage(b *testing.B) {
	const hosts, perTx = 50, 200
	d, err := Open(filepath.Join(b.TempDir(), "s.db"), Options{NoSync: true, NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	host := func(h int) string { return fmt.Sprintf("h%d.test", h%hosts) }
	page := func(h, i int) string {
		if i == 0 {
			return "http://" + host(h) + "/"
		}
		return fmt.Sprintf("http://%s/p/%d", host(h), i)
	}
	seqs := map[string]uint64{} // URL -> queue position
	if err := d.Update(func(tx *Tx) error {
		for h := range hosts {
			if err := tx.PutURL(&URLRecord{URL: page(h, 0), State: Queued, DiscoveredVia: "seed", Links: []string{}}, ""); err != nil {
				return err
			}
			if err := tx.Enqueue(host(h), page(h, 0)); err != nil {
				return err
			}
			seqs[page(h, 0)] = tx.LastSeq()
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	body, _ := CompressBody([]byte("<html><head><title>page</title></head><body>a tree page</body></html>"))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	n := 0
	record := func(tx *Tx) error {
		h, i := n%hosts, n/hosts
		n++
		u := page(h, i)
		rec, err := tx.GetURL(u)
		if err != nil || rec == nil {
			return fmt.Errorf("record of %s: %v", u, err)
		}
		links := []string{page(h, 2*i+1), page(h, 2*i+2), page(h+1, 0)}
		for _, l := range links {
			if tx.Seen(l) {
				continue
			}
			r := &URLRecord{URL: l, State: Queued, Depth: rec.Depth + 1, DiscoveredVia: "link", Parent: u, Links: []string{}}
			if err := tx.PutURL(r, ""); err != nil {
				return err
			}
			if err := tx.Enqueue(host(h), l); err != nil {
				return err
			}
			seqs[l] = tx.LastSeq()
		}
		prev := rec.State
		rec.State, rec.Status, rec.FetchedAt, rec.CheckedAt = Fetched, 200, at, at
		rec.ContentType, rec.Bytes, rec.Title, rec.Links = "text/html", 400, "page", links
		if err := tx.PutURL(rec, prev); err != nil {
			return err
		}
		if err := tx.Dequeue(host(h), seqs[u]); err != nil {
			return err
		}
		delete(seqs, u)
		if err := tx.PutCompressedBody(u, body); err != nil {
			return err
		}
		return tx.PutHost(host(h), HostRecord{LastRequest: at, Interval: 1, Pages: i + 1, IP: "127.0.0.1"})
	}
	var batch *Batch
	for b.Loop() {
		// The commit is timed too: work deferred to it is still work.
		if n%perTx == 0 {
			if batch != nil {
				if err := batch.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			if batch, err = d.Begin(); err != nil {
				b.Fatal(err)
			}
		}
		if err := batch.Do(record); err != nil {
			b.Fatal(err)
		}
	}
	if batch != nil {
		if err := batch.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
