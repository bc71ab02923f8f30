package storage

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkQueued10M measures the frontier at scale (issue 11): the
// crawl of one host whose pages each link 10,000 URLs on 500 other hosts,
// recorded as the crawler records a page (one transaction: the page's
// fetched record with its links, then for each new link a Seen check, its
// queued record, its queue entry and the host's admitted count). It
// queues POLITECRAWL_QUEUED_N URLs (default 1,000,000; 10,000,000 by
// hand), in POLITECRAWL_MEASURE_DIR if set, and reports:
//
//	bytes/URL        file size / N
//	URLs/s           queued per second
//	peak-RSS-MiB     VmHWM while queuing (bbolt's mmap pages touched count)
//	anon-RSS-MiB     RssAnon at the end of queuing (the Go heap's share)
//	open-ms          Open of the writable file after Close
//	first-dequeue-ms the first Head and Dequeue after that open
//	reopen-RSS-MiB   VmHWM from after Close to after that Dequeue
//
// Measured at 10 M on 2 shared cores (commit b5c348c): 260.1 bytes/URL
// (2,480 MB), 15,060 URLs/s, peak RSS 2,456 MiB of which RssAnon 310,
// open 159 ms, first Dequeue 5.6 ms, reopen RSS 92 MiB. With compressed
// link lists and host-id queue keys (commit 4ea6fd9): 206.9 bytes/URL
// (1,973 MiB), 18,403 URLs/s, peak RSS 2,195 MiB of which RssAnon 310,
// open 130 ms, first Dequeue 8.8 ms, reopen RSS 91 MiB.
//
// With POLITECRAWL_QUEUED_STATS=1 it also logs each bucket's pages, and
// POLITECRAWL_QUEUE_FILL sets the queue bucket's FillPercent (to compare).
func BenchmarkQueued10M(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("POLITECRAWL_QUEUED_N")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("POLITECRAWL_QUEUE_FILL"), 64); err == nil {
		old := fillPercent[string(bucketQueue)]
		fillPercent[string(bucketQueue)] = v
		b.Cleanup(func() { fillPercent[string(bucketQueue)] = old })
	}
	dir := os.Getenv("POLITECRAWL_MEASURE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for i := 0; i < b.N; i++ {
		path := filepath.Join(dir, fmt.Sprintf("queued-%d-%d.db", n, i))
		os.Remove(path)
		queuedRun(b, path, n)
		os.Remove(path)
	}
}

const (
	queuedLinksPerPage = 10_000
	queuedHosts        = 500
)

var queuedWords = strings.Fields("news article blog post story report guide review update products item " +
	"category archive tag page search topic world local sport tech science culture")

// queuedLinks returns the links of seed page p: realistic shapes, unique
// across pages, in a random order of hosts.
func queuedLinks(rng *rand.Rand, p int) []string {
	links := make([]string, queuedLinksPerPage)
	for j := range links {
		w := func() string { return queuedWords[rng.IntN(len(queuedWords))] }
		links[j] = fmt.Sprintf("https://host-%d.example/%s/%s-%s-%d?q=%d", rng.IntN(queuedHosts), w(), w(), w(),
			p*queuedLinksPerPage+j, rng.IntN(100000))
	}
	return links
}

func queuedRun(b *testing.B, path string, n int) {
	b.Helper()
	d, err := Open(path, Options{NoSync: true, NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	queued := 0
	for p := 0; queued < n; p++ {
		links := queuedLinks(rng, p)
		links = links[:min(len(links), n-queued)]
		err := d.Update(func(tx *Tx) error {
			added, err := queuedPage(tx, p, links)
			queued += added
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	took := time.Since(start)
	peak, anon := procStatus("VmHWM"), procStatus("RssAnon")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/float64(n), "bytes/URL")
	b.ReportMetric(float64(n)/took.Seconds(), "URLs/s")
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(anon, "anon-RSS-MiB")

	start = time.Now()
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	closed := time.Now()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // resets VmHWM
	if d, err = Open(path, Options{NoSync: true, NoBackup: true}); err != nil {
		b.Fatal(err)
	}
	opened := time.Now()
	err = d.Update(func(tx *Tx) error {
		_, seq, ok := tx.Head("host-0.example")
		if !ok {
			return fmt.Errorf("host-0.example has nothing queued")
		}
		return tx.Dequeue("host-0.example", seq)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(opened.Sub(closed).Microseconds())/1000, "open-ms")
	b.ReportMetric(float64(time.Since(opened).Microseconds())/1000, "first-dequeue-ms")
	b.ReportMetric(procStatus("VmHWM"), "reopen-RSS-MiB")
	b.Logf("N %d: file %d MB, queued in %v, close %v", n, fi.Size()>>20, took.Round(time.Millisecond), closed.Sub(start).Round(time.Millisecond))
	if os.Getenv("POLITECRAWL_QUEUED_STATS") != "" {
		logBucketStats(b, d)
	}
	d.Close()
}

// queuedPage records seed page p and admits its links, as the crawler
// does, returning how many it queued.
func queuedPage(tx *Tx, p int, links []string) (int, error) {
	parent := fmt.Sprintf("https://seed.example/page/%d", p)
	added := 0
	for _, u := range links {
		if tx.Seen(u) {
			continue
		}
		host := strings.SplitN(u, "/", 4)[2]
		r := &URLRecord{URL: u, State: Queued, Depth: 1, DiscoveredVia: "link", Parent: parent, Links: []string{}}
		if err := tx.PutURL(r, ""); err != nil {
			return added, err
		}
		if err := tx.Enqueue(host, u); err != nil {
			return added, err
		}
		tx.AddAdmitted(host, 1)
		added++
	}
	page := &URLRecord{URL: parent, State: Fetched, Status: 200, DiscoveredVia: "seed", FetchedAt: time.Now(),
		ContentType: "text/html; charset=utf-8", Title: "Links page", Links: links, Bytes: 700_000}
	return added, tx.PutURL(page, "")
}

// procStatus reads a field of /proc/self/status, in MiB (0 elsewhere).
func procStatus(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

func logBucketStats(b *testing.B, d *DB) {
	d.View(func(tx *Tx) error {
		for _, name := range allBuckets {
			bk := tx.tx.Bucket(name)
			if bk == nil {
				continue
			}
			s := bk.Stats()
			b.Logf("%-9s keys %9d  leaf pages %7d (+%d overflow), %5.1f%% used  branch pages %5d",
				name, s.KeyN, s.LeafPageN, s.LeafOverflowN, 100*float64(s.LeafInuse)/float64(max(s.LeafAlloc, 1)), s.BranchPageN)
		}
		return nil
	})
}
