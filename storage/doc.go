// Package storage owns the crawl's state file: one bbolt database holding
// the URL records (the seen set), the per-host FIFO queues, host state,
// cached robots.txt and tdmrep.json files, compressed page bodies and
// running counters.
//
// # Basics
//
// Open takes an exclusive lock on the file; a second writer fails at once
// with ErrLocked (on Unix; elsewhere after Options.Timeout), and waits up
// to Options.Timeout only for readers. OpenReadOnly takes a shared lock,
// so status and export can read a file no crawl holds.
//
// Every change goes through Update, whose function receives a *Tx with the
// domain operations (PutURL, Enqueue, Dequeue, ...). One Update is one bbolt
// transaction: everything in it lands together or not at all, so callers
// group a fetched page's record with the links it queued, and may group
// several such results into one commit for speed.
//
// # Layout
//
//	urls      normal URL -> URL record: binary (urlcodec.go; 6-9 bytes
//	          for a queued URL; a fetched page's link list front-coded,
//	          and flate-compressed over 1 KiB), or the JSON of files
//	          written before it; the seen set
//	parents   id(8, big-endian) -> parent URL; ids from the bucket's sequence
//	parentids parent URL -> id(8, big-endian); records name their parent by id
//	queue     0x01 host id(uvarint) n(1) seq(n, big-endian) -> marker byte
//	          and the URL after "http(s)://"+authority (queue.go,
//	          queuekeys.go); files written before keep entries under
//	          authority 0x00 seq(8), read (first) beside the new ones, and
//	          whole-URL values; per-host FIFO
//	qhostids  authority -> queue host id (uvarint), allocated with the
//	          host's first Enqueue, in its transaction
//	qhosts    queue host id (uvarint) -> authority; ids from its sequence
//	hostq     authority -> queued count (8, big-endian)
//	hosta     authority -> URLs ever admitted (8, big-endian), for the per-host budget
//	hosts     authority -> HostRecord (JSON)
//	robots    origin -> RobotsRecord (JSON)
//	tdmrep    origin -> TDMRepRecord (JSON): its /.well-known/tdmrep.json;
//	          created on first use
//	bodies    normal URL -> body: gzip, or under 1 KiB 0x00 + the body as it is
//	sitemaps  sitemap URL -> SitemapRecord (JSON); also the visited set
//	due       when(8, big-endian ns) kind(1) URL -> nothing; recrawls by due time
//	meta      "seq" and "count/<state>" counters (8, big-endian)
//	digests   payload digest -> DigestRecord (JSON); created on first use
//
// queue and parents only ever append within a key range: their pages are
// packed full (bbolt's FillPercent 1.0, set per transaction), where
// bbolt's default half-fills them for good. The freelist is written at
// every commit, so an open reads one page instead of walking the file.
//
// # Damage
//
// A damaged file (truncated, garbled, empty, not a bbolt file) is reported,
// never a crash: every error says so with a *DamagedError, which
// errors.Is(err, ErrDamaged) matches and which names the last good copy.
// Open checks the meta pages, the file's length and the freelist page
// always; up to Options.CheckLimit it also walks every page (reading with
// pread and bounds checks, in format.go) and runs bbolt's Tx.Check. A file
// over the limit is not walked, so that a start costs the same whatever
// the queue's length: damage in it is found when a read reaches it (an
// error, as for read-only opens), not at open. The exception is a file
// written before the freelist was synced: its first writable open walks
// it, because bbolt then rebuilds the freelist by walking every page in a
// goroutine where damage is a crash; that open writes the freelist. Update and View recover bbolt's panics on damaged
// pages and, through debug.SetPanicOnFault, faults on its mmap. Close of a
// writable file copies it to BackupPath after checking the copy. Check
// reports on a file; Salvage copies what is readable into a new one.
//
// # Caveats
//
// A URL stays at the head of its host queue until the transaction that
// records its result removes it, so a crash re-fetches only what was in
// flight. The package makes no policy decisions and imports nothing else
// from this module. An open of a file over the check limit does not walk
// its pages: damage is found when a read reaches it. Pages of the file
// that bbolt reads through its mmap count in the process's RSS (as
// file-backed pages the kernel can drop), so RSS grows with the part of
// the seen set a crawl touches.
package storage
