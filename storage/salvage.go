package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// SalvageReport says what Salvage copied.
type SalvageReport struct {
	Buckets  []BucketSalvage // in the source file's order
	Problems []string        // the damage met, as the check words it
	Repairs  []string        // what was rebuilt so a crawl can resume
}

// BucketSalvage counts one bucket's records.
type BucketSalvage struct {
	Name   string
	Copied int
	// Lost is how many records were lost, when the file says how many
	// there were (urls and queue keep counters); -1 when unknown.
	Lost int
	// DamagedPages is how many damaged pages (each with everything under
	// it) were skipped.
	DamagedPages int
}

// Salvage copies every record that can be read from the state file at src
// into a new state file at dst, bucket by bucket and key by key, skipping
// damaged pages and what lies under them. It reads src with bounds-checked
// pread only (never bbolt's mmap), so no damage can crash it. It refuses to
// write over an existing dst. The copy is then made consistent for a crawl
// to resume from it: state counters and per-host queue counts are
// recounted, queue entries whose URL record was lost are dropped (the URL
// can be found again), queued URLs that lost their queue entry are queued
// again, lost recrawl schedules are rebuilt from the records, and the crawl
// is marked as having crashed, so a resumed run waits a full delay before
// its first request to each host.
func Salvage(src, dst string, opts Options) (*SalvageReport, error) {
	if _, err := os.Lstat(dst); err == nil {
		return nil, fmt.Errorf("salvage %q: %s already exists; give a new file", src, dst)
	}
	// Hold the shared lock when bbolt can take it, so no crawl writes
	// meanwhile. A file bbolt cannot open, no crawl can be writing either.
	b, err := openBolt(src, opts, true)
	switch {
	case errors.Is(err, ErrLocked):
		return nil, err
	case err == nil:
		defer b.Close()
	case !errors.Is(err, ErrDamaged):
		return nil, err
	}
	rep := &SalvageReport{}
	pf, err := openPageFileLenient(src)
	if pf == nil {
		return nil, damaged(src, "%v; nothing can be salvaged", err)
	}
	defer pf.Close()
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	rep.Problems = append(rep.Problems, pf.notes...)
	dir, base := filepath.Split(dst)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, base+".new-*")
	if err != nil {
		return nil, fmt.Errorf("salvage %q: %w", src, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	os.Remove(tmpPath) // bbolt initialises a file it creates, not an empty one
	defer os.Remove(tmpPath)
	if err := copyRecords(pf, tmpPath, rep); err != nil {
		return nil, fmt.Errorf("salvage %q: %w", src, err)
	}
	if err := repair(tmpPath, rep); err != nil {
		return nil, fmt.Errorf("salvage %q: %w", src, err)
	}
	if err := os.Link(tmpPath, dst); err != nil {
		return nil, fmt.Errorf("salvage %q: %w", src, err)
	}
	return rep, syncDir(dir)
}

// copyRecords walks src and puts every readable key into a new bbolt file.
func copyRecords(pf *pageFile, dst string, rep *SalvageReport) error {
	out, err := bolt.Open(dst, 0o600, &bolt.Options{NoSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return err
	}
	defer out.Close()
	tx, err := out.Begin(true)
	if err != nil {
		return err
	}
	defer func() { tx.Rollback() }()
	index := map[string]int{}
	stat := func(path [][]byte) *BucketSalvage {
		name := "(root)"
		if len(path) > 0 {
			name = string(path[0])
		}
		i, ok := index[name]
		if !ok {
			i = len(rep.Buckets)
			index[name] = i
			rep.Buckets = append(rep.Buckets, BucketSalvage{Name: name, Lost: -1})
		}
		return &rep.Buckets[i]
	}
	var werr error
	pending := 0
	w := &walker{pf: pf}
	w.damage = func(path [][]byte, err error) {
		stat(path).DamagedPages++
		if len(rep.Problems) < maxProblems {
			rep.Problems = append(rep.Problems, bucketPrefix(path)+err.Error())
		}
	}
	w.bucket = func(path [][]byte) {
		stat(path)
		if len(path) > 1 {
			// The state file never nests buckets: a value whose flags
			// were garbled into a bucket's.
			w.damage(path[:1], fmt.Errorf("key %q is marked as a nested bucket; not copied", path[1]))
			return
		}
		if _, err := bucketAt(tx, path); err != nil && werr == nil {
			// A garbled flag made a value of a bucket or the reverse.
			w.damage(path, fmt.Errorf("bucket not copied: %w", err))
		}
	}
	w.kv = func(path [][]byte, k, v []byte) {
		if werr != nil || len(path) > 1 {
			return
		}
		b, err := bucketAt(tx, path)
		if err == nil {
			err = b.Put(k, v)
		}
		if err != nil {
			w.damage(path, fmt.Errorf("key %q not copied: %w", k, err))
			return
		}
		stat(path).Copied++
		if pending++; pending >= 10000 {
			pending = 0
			if werr = tx.Commit(); werr == nil {
				tx, werr = out.Begin(true)
			}
		}
	}
	w.walkRoot()
	if werr != nil {
		return werr
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return out.Sync()
}

// bucketAt returns the bucket at path in tx, creating it and its parents.
func bucketAt(tx *bolt.Tx, path [][]byte) (*bolt.Bucket, error) {
	if len(path) == 0 {
		return nil, errors.New("a key outside any bucket")
	}
	b, err := tx.CreateBucketIfNotExists(path[0])
	for _, name := range path[1:] {
		if err != nil {
			break
		}
		b, err = b.CreateBucketIfNotExists(name)
	}
	return b, err
}

// repair makes the copied records consistent (see Salvage) and records
// what it did in rep.
func repair(path string, rep *SalvageReport) error {
	d, err := Open(path, Options{NoBackup: true, FullCheck: true})
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Update(func(t *Tx) error {
		return repairTx(t, rep)
	})
}

func repairTx(t *Tx, rep *SalvageReport) error {
	btx := t.tx
	meta := btx.Bucket(bucketMeta)

	// What the old counters said there was, before recounting.
	oldURLs, oldQueued := -1, -1
	if n, ok := sumCounts(meta); ok {
		oldURLs = n
	}
	if n, ok := sumU64(btx.Bucket(bucketHostQ)); ok {
		oldQueued = n
	}
	if err := dropBadRecords(btx, rep); err != nil {
		return err
	}
	orphans, err := repairParents(btx)
	if err != nil {
		return err
	}
	sc, err := scanURLs(btx)
	if err != nil {
		return err
	}
	hostQ, err := repairQueues(t, rep, sc.queued)
	if err != nil {
		return err
	}

	// Records whose parent's URL was lost keep everything else.
	for _, r := range sc.lostParent {
		if err := t.PutURL(r, r.State); err != nil {
			return err
		}
	}
	if len(sc.lostParent) > 0 {
		rep.Repairs = append(rep.Repairs, fmt.Sprintf("%d records lost the URL of the page they were found on", len(sc.lostParent)))
	}
	if orphans > 0 {
		rep.Repairs = append(rep.Repairs, fmt.Sprintf("rebuilt the parent URL index (%d entries without their parent were dropped)", orphans))
	}

	// State counters, recounted.
	for _, s := range States {
		if err := meta.Put(countKey(s), putU64(uint64(sc.counts[s]))); err != nil {
			return err
		}
	}
	copied := 0
	for _, n := range sc.counts {
		copied += n
	}
	setLost(rep, string(bucketURLs), oldURLs, copied)
	kept := 0
	for _, n := range hostQ {
		kept += int(n)
	}
	setLost(rep, string(bucketQueue), oldQueued, kept)
	rep.Repairs = append(rep.Repairs, "recounted the URL states and the per-host queue counts")

	// Admitted per host is never below the records the host has.
	hosta := btx.Bucket(bucketHostA)
	for h, n := range sc.perHost {
		if int(u64(hosta.Get([]byte(h)))) < n {
			if err := hosta.Put([]byte(h), putU64(uint64(n))); err != nil {
				return err
			}
		}
	}
	if err := t.rebuildHostStates(); err != nil {
		return err
	}
	if err := rescheduleLost(t, rep, sc.due); err != nil {
		return err
	}
	// Resume as after a crash: a full delay before each host's first request.
	return t.SetFlag("running", true)
}

// dropBadRecords drops the records that do not decode: they would stop a
// crawl's restore.
func dropBadRecords(btx *bolt.Tx, rep *SalvageReport) error {
	for name, decode := range map[string]func([]byte) error{
		string(bucketURLs):     func(v []byte) error { _, _, err := decodeRecord("", v); return err },
		string(bucketHosts):    func(v []byte) error { return json.Unmarshal(v, new(HostRecord)) },
		string(bucketRobots):   func(v []byte) error { return json.Unmarshal(v, new(RobotsRecord)) },
		string(bucketSitemaps): func(v []byte) error { return json.Unmarshal(v, new(SitemapRecord)) },
		string(bucketDigests):  func(v []byte) error { return json.Unmarshal(v, new(DigestRecord)) },
		string(bucketTDMRep):   func(v []byte) error { return json.Unmarshal(v, new(TDMRepRecord)) },
		string(bucketQHostIDs): func(v []byte) error { _, err := decodeQueueID(v); return err },
	} {
		b := btx.Bucket([]byte(name))
		if b == nil {
			continue // digests, tdmrep: created on first use
		}
		n, err := dropUndecodable(b, decode)
		if err != nil {
			return err
		}
		if n > 0 {
			rep.Repairs = append(rep.Repairs, fmt.Sprintf("dropped %d %s records that do not decode", n, name))
			for i := range rep.Buckets {
				if rep.Buckets[i].Name == name {
					rep.Buckets[i].Copied -= n
					rep.Buckets[i].Lost = max(rep.Buckets[i].Lost, 0) + n
				}
			}
		}
	}
	return nil
}

// urlScan is what the URL records say, for the repairs that follow.
type urlScan struct {
	counts     map[State]int
	queued     map[string]bool // URLs that should have a queue entry
	perHost    map[string]int  // records per host, skipped ones aside
	due        []Due           // rechecks the records schedule
	lostParent []*URLRecord    // records whose parent's URL was lost
}

// scanURLs recounts the URL records' states and notes which are queued,
// each host's count, their schedule and lost parents.
func scanURLs(btx *bolt.Tx) (urlScan, error) {
	sc := urlScan{counts: map[State]int{}, queued: map[string]bool{}, perHost: map[string]int{}}
	err := btx.Bucket(bucketURLs).ForEach(func(k, v []byte) error {
		r, id, err := decodeRecord(string(k), v)
		if err != nil {
			return err // dropped before: not reached
		}
		if id != 0 {
			var ok bool
			if r.Parent, ok = lookupParent(btx.Bucket(bucketParents), id, (*bolt.Bucket).Get); !ok {
				sc.lostParent = append(sc.lostParent, &r)
			}
		}
		sc.counts[r.State]++
		if r.State == Queued || r.NextCheck.Equal(CheckQueued) {
			// A decided page queued for its recheck has a queue entry
			// too: kept, or made again if lost.
			sc.queued[r.URL] = true
		}
		if r.State != Skipped {
			if u, err := url.Parse(r.URL); err == nil && u.Host != "" {
				sc.perHost[u.Host]++
			}
		}
		if r.Recheckable() && r.Scheduled() {
			sc.due = append(sc.due, Due{At: r.NextCheck, Kind: DuePage, URL: r.URL})
		}
		return nil
	})
	return sc, err
}

// repairQueues drops queue entries without a record, queues again the
// queued URLs that lost their entry, and restarts the per-host queue
// counts from what is kept (returned).
func repairQueues(t *Tx, rep *SalvageReport, queuedURLs map[string]bool) (map[string]int64, error) {
	btx := t.tx
	meta, queue := btx.Bucket(bucketMeta), btx.Bucket(bucketQueue)
	var drop [][]byte
	inQueue := map[string]bool{}
	hostQ := map[string]int64{}
	seq := u64(meta.Get(keySeq))
	if err := queue.ForEach(func(k, v []byte) error {
		// A new-form key counts only if its id and its host name each
		// other (qhosts and qhostids agree): Head finds it by the host.
		host, n, ok := queueKeyHost(btx.Bucket(bucketQHosts), k)
		if ok && k[0] == queueKeyV2 {
			id, _, _ := parseQueueKeyV2(k)
			ok = btx.Bucket(bucketQHostIDs) != nil && idMatches(btx.Bucket(bucketQHostIDs).Get([]byte(host)), id)
		}
		u := queueURL(host, v)
		if !ok || !queuedURLs[u] {
			drop = append(drop, k)
			return nil
		}
		inQueue[u] = true
		hostQ[host]++
		seq = max(seq, n)
		return nil
	}); err != nil {
		return nil, err
	}
	for _, k := range drop {
		if err := queue.Delete(k); err != nil {
			return nil, err
		}
	}
	if len(drop) > 0 {
		rep.Repairs = append(rep.Repairs, fmt.Sprintf("dropped %d queue entries whose URL record was lost (the URLs can be found again)", len(drop)))
	}
	if err := meta.Put(keySeq, putU64(seq)); err != nil {
		return nil, err
	}

	// Queued URLs that lost their queue entry go to the back of their queue.
	var requeue []string
	for u := range queuedURLs {
		if !inQueue[u] {
			requeue = append(requeue, u)
		}
	}
	sort.Strings(requeue)
	for _, u := range requeue {
		p, err := url.Parse(u)
		if err != nil || p.Host == "" {
			continue
		}
		if err := t.Enqueue(p.Host, u); err != nil {
			return nil, err
		}
	}
	if len(requeue) > 0 {
		rep.Repairs = append(rep.Repairs, fmt.Sprintf("queued again %d queued URLs whose queue entry was lost", len(requeue)))
	}
	// Enqueue counted into t.hostQ; start the recount from the kept entries.
	for h, n := range hostQ {
		t.hostQ[h] += n
	}
	if err := btx.DeleteBucket(bucketHostQ); err != nil {
		return nil, err
	}
	if _, err := btx.CreateBucket(bucketHostQ); err != nil {
		return nil, err
	}
	return hostQ, nil
}

// rescheduleLost schedules again the rechecks the records say are due
// but the schedule lost.
func rescheduleLost(t *Tx, rep *SalvageReport, due []Due) error {
	scheduled := map[string]bool{}
	t.tx.Bucket(bucketDue).ForEach(func(k, _ []byte) error {
		if len(k) > 9 && k[8] == DuePage {
			scheduled[string(k[9:])] = true
		}
		return nil
	})
	added := 0
	for _, d := range due {
		if !scheduled[d.URL] {
			if err := t.ScheduleDue(d); err != nil {
				return err
			}
			added++
		}
	}
	if added > 0 {
		rep.Repairs = append(rep.Repairs, fmt.Sprintf("scheduled again %d recrawls that were lost", added))
	}
	return nil
}

func dropUndecodable(b *bolt.Bucket, decode func([]byte) error) (int, error) {
	var bad [][]byte
	b.ForEach(func(k, v []byte) error {
		if v == nil || decode(v) != nil {
			bad = append(bad, k)
		}
		return nil
	})
	for _, k := range bad {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(bad), nil
}

// setLost records what a bucket holds after the repairs and, when the
// old counters said how many there were, how many were lost.
func setLost(rep *SalvageReport, name string, had, kept int) {
	for i := range rep.Buckets {
		if rep.Buckets[i].Name != name {
			continue
		}
		rep.Buckets[i].Copied = kept
		if had >= 0 {
			rep.Buckets[i].Lost = max(had-kept, 0)
		}
	}
}

// sumCounts adds the state counters of a meta bucket; ok false when
// none survived.
func sumCounts(meta *bolt.Bucket) (int, bool) {
	n, ok := 0, false
	for _, s := range States {
		if v := meta.Get(countKey(s)); v != nil {
			n += int(u64(v))
			ok = true
		}
	}
	return n, ok
}

func sumU64(b *bolt.Bucket) (int, bool) {
	if b == nil {
		return 0, false
	}
	n, ok := 0, false
	b.ForEach(func(_, v []byte) error {
		n += int(u64(v))
		ok = true
		return nil
	})
	return n, ok
}

// repairParents makes the parent index consistent with the parents
// bucket, which is what records name: parentids is rebuilt from it (its
// entries that name a lost id would give new records an id that does not
// resolve), and the bucket's sequence, which a copy key by key loses, is
// set past its highest id. It returns how many parentids entries it
// dropped.
func repairParents(btx *bolt.Tx) (dropped int, err error) {
	parents, ids := btx.Bucket(bucketParents), btx.Bucket(bucketParentIDs)
	had := 0
	ids.ForEach(func(_, _ []byte) error { had++; return nil })
	if err := btx.DeleteBucket(bucketParentIDs); err != nil {
		return 0, err
	}
	if ids, err = btx.CreateBucket(bucketParentIDs); err != nil {
		return 0, err
	}
	var top uint64
	var bad [][]byte
	kept := 0
	if err := parents.ForEach(func(k, v []byte) error {
		if len(k) != 8 || u64(k) == 0 {
			bad = append(bad, k)
			return nil
		}
		top = max(top, u64(k))
		kept++
		return ids.Put(append([]byte(nil), v...), putU64(u64(k)))
	}); err != nil {
		return 0, err
	}
	for _, k := range bad {
		if err := parents.Delete(k); err != nil {
			return 0, err
		}
	}
	if err := parents.SetSequence(max(top, parents.Sequence())); err != nil {
		return 0, err
	}
	return max(had-kept, 0), nil
}
