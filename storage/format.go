package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
)

// This file reads the bbolt file format directly, with pread and bounds
// checks on every offset, never through bbolt's mmap. bbolt trusts its
// pages: a garbled page id makes it read past the end of the mapping (a
// fault recover cannot catch in its own goroutines) and a garbled offset
// makes it panic. Reading the file this way first is what makes it safe to
// hand the file to bbolt, and it is what salvage uses to copy what can be
// read from a file bbolt cannot open.

const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16
	elemSize       = 16 // branch and leaf elements are both 16 bytes
	metaSize       = 64
	flagBranch     = 0x01
	flagLeaf       = 0x02
	flagMeta       = 0x04
	flagFreelist   = 0x10
	leafBucket     = 0x01
	noFreelist     = ^uint64(0)
	maxDepth       = 64 // deeper than any real tree: a loop or garbage
)

// le is bbolt's byte order on every platform we build for (it writes the
// host's order; the file is not portable across endianness).
var le = binary.NativeEndian

type meta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64 // high-water mark: pages [0, pgid) are in use
	txid     uint64
}

// parseMeta decodes and validates the meta page in b.
func parseMeta(b []byte) (meta, error) {
	if len(b) < pageHeaderSize+metaSize {
		return meta{}, errors.New("short")
	}
	m := b[pageHeaderSize:]
	if le.Uint32(m[0:]) != boltMagic {
		return meta{}, errNoMagic
	}
	if v := le.Uint32(m[4:]); v != boltVersion {
		return meta{}, fmt.Errorf("%w %d, want %d", errVersion, v, boltVersion)
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return meta{}, errors.New("checksum mismatch")
	}
	mt := meta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]),
		pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}
	switch {
	case mt.pageSize < 1024 || mt.pageSize > 1<<24 || mt.pageSize&(mt.pageSize-1) != 0:
		return meta{}, fmt.Errorf("page size %d", mt.pageSize)
	case mt.pgid < 3 || mt.root < 2 || mt.root >= mt.pgid:
		return meta{}, fmt.Errorf("root page %d outside [2, %d)", mt.root, mt.pgid)
	case mt.freelist != noFreelist && (mt.freelist < 2 || mt.freelist >= mt.pgid):
		return meta{}, fmt.Errorf("freelist page %d outside [2, %d)", mt.freelist, mt.pgid)
	}
	return mt, nil
}

// pageFile is a state file opened for structural reading.
type pageFile struct {
	f     *os.File
	size  int64
	meta  meta
	notes []string // oddities that lose nothing (a torn meta page)
}

// openPageFile reads and validates the meta pages and checks that the
// file holds every page the chosen meta says is in use: bbolt checks the
// meta checksums but not the file's length, and reading a page past the
// end of the file through its mmap is a fault, not an error.
func openPageFile(path string) (*pageFile, error) {
	p, err := openPageFileLenient(path)
	if err != nil && p != nil {
		p.Close()
		p = nil
	}
	return p, err
}

// openPageFileLenient is openPageFile for salvage: a truncated file is
// returned along with the error, so what lies before the cut can be read.
func openPageFileLenient(path string) (*pageFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p := &pageFile{f: f}
	if err := p.init(); err != nil {
		if p.meta.pgid == 0 {
			f.Close()
			return nil, err
		}
		return p, err
	}
	return p, nil
}

func (p *pageFile) Close() error { return p.f.Close() }

func (p *pageFile) init() error {
	fi, err := p.f.Stat()
	if err != nil {
		return err
	}
	p.size = fi.Size()
	if p.size == 0 {
		return errEmpty
	}
	buf := make([]byte, 4096)
	n, _ := p.f.ReadAt(buf, 0)
	m0, err0 := parseMeta(buf[:n])
	looksMeta := n >= pageHeaderSize+metaSize && le.Uint64(buf) == 0 && le.Uint16(buf[8:]) == flagMeta
	var m1 meta
	err1 := errors.New("not found")
	if err0 == nil {
		err1 = p.readMeta(buf, int64(m0.pageSize), &m1)
	} else {
		// Like bbolt: without meta 0 the page size is unknown; try them all.
		for ps := int64(1024); ps <= 1<<24 && ps < p.size; ps <<= 1 {
			if err1 = p.readMeta(buf, ps, &m1); err1 == nil {
				break
			}
		}
	}
	switch {
	case err0 != nil && err1 != nil:
		if !looksMeta && !errors.Is(err0, errVersion) {
			return fmt.Errorf("not a bbolt file (%d bytes, no valid meta page: %v)", p.size, err0)
		}
		return fmt.Errorf("both meta pages are invalid (meta 0: %v; meta 1: %v)", err0, err1)
	case err0 != nil:
		p.meta = m1
		p.notes = append(p.notes, fmt.Sprintf("meta page 0 is invalid (%v); bbolt uses meta page 1", err0))
	case err1 != nil:
		p.meta = m0
		p.notes = append(p.notes, fmt.Sprintf("meta page 1 is invalid (%v); bbolt uses meta page 0", err1))
	case m1.txid > m0.txid:
		p.meta = m1
	default:
		p.meta = m0
	}
	ps := int64(p.meta.pageSize)
	if need := int64(p.meta.pgid) * ps; need/ps != int64(p.meta.pgid) || p.size < need {
		return fmt.Errorf("truncated: %d bytes, but its last transaction (txid %d) uses %d pages of %d bytes (%d bytes)",
			p.size, p.meta.txid, p.meta.pgid, ps, need)
	}
	if p.size%ps != 0 {
		p.notes = append(p.notes, fmt.Sprintf("size %d is not a multiple of the page size %d (the tail is unused)", p.size, ps))
	}
	return nil
}

func (p *pageFile) readMeta(buf []byte, off int64, m *meta) error {
	n, _ := p.f.ReadAt(buf, off)
	mt, err := parseMeta(buf[:n])
	if err != nil {
		return err
	}
	if int64(mt.pageSize) != off {
		return fmt.Errorf("page size %d at offset %d", mt.pageSize, off)
	}
	*m = mt
	return nil
}

var (
	errEmpty   = errors.New("the file is empty (0 bytes)")
	errNoMagic = errors.New("no bbolt magic number")
	errVersion = errors.New("bbolt format version")
)

// page reads page id and its overflow pages, checking its header.
func (p *pageFile) page(id uint64) ([]byte, error) {
	ps := int64(p.meta.pageSize)
	if id < 2 || id >= p.meta.pgid {
		return nil, fmt.Errorf("page id %d outside [2, %d)", id, p.meta.pgid)
	}
	if int64(id+1)*ps > p.size {
		return nil, fmt.Errorf("page %d lies past the end of the file (truncated)", id)
	}
	buf := make([]byte, ps)
	if _, err := p.f.ReadAt(buf, int64(id)*ps); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := le.Uint64(buf); got != id {
		return nil, fmt.Errorf("page %d: header says page %d", id, got)
	}
	if over := uint64(le.Uint32(buf[12:])); over > 0 {
		if id+over >= p.meta.pgid {
			return nil, fmt.Errorf("page %d: %d overflow pages run past the high-water mark %d", id, over, p.meta.pgid)
		}
		if int64(id+over+1)*ps > p.size {
			return nil, fmt.Errorf("page %d: its overflow pages lie past the end of the file (truncated)", id)
		}
		buf = make([]byte, int64(over+1)*ps)
		if _, err := p.f.ReadAt(buf, int64(id)*ps); err != nil {
			return nil, fmt.Errorf("page %d: %w", id, err)
		}
	}
	return buf, nil
}

// walker visits every key of every bucket reachable from the root,
// checking each page on the way. A damaged subtree is reported through
// damage and skipped, so a walk always finishes.
type walker struct {
	pf      *pageFile
	seen    map[uint64]bool
	pages   int
	keys    int
	kv      func(bucket [][]byte, k, v []byte) // nil: check only
	bucket  func(bucket [][]byte)              // nil: check only
	damage  func(bucket [][]byte, err error)
	path    [][]byte
	lo, hi  []byte // key bounds of the page being read (branch keys)
	lastKey []byte
}

// walkRoot walks the whole file.
func (w *walker) walkRoot() {
	w.seen = map[uint64]bool{}
	if err := w.pf.checkFreelist(); err != nil {
		w.damage(nil, err)
	}
	w.tree(w.pf.meta.root, 0)
}

// tree walks the B+tree rooted at page id: one bucket's keys.
func (w *walker) tree(id uint64, depth int) {
	w.lastKey = nil
	w.node(id, nil, nil, depth)
}

func (w *walker) node(id uint64, lo, hi []byte, depth int) {
	if depth > maxDepth {
		w.damage(w.path, fmt.Errorf("page %d: tree deeper than %d", id, maxDepth))
		return
	}
	if w.seen[id] {
		w.damage(w.path, fmt.Errorf("page %d is referenced twice", id))
		return
	}
	b, err := w.pf.page(id)
	if err != nil {
		w.damage(w.path, err)
		return
	}
	over := le.Uint32(b[12:])
	for i := uint64(0); i <= uint64(over); i++ {
		w.seen[id+i] = true
	}
	w.pages++
	switch flags := le.Uint16(b[8:]); flags {
	case flagBranch:
		w.branch(id, b, lo, hi, depth)
	case flagLeaf:
		w.leaf(fmt.Sprintf("page %d", id), b, lo, hi, depth)
	default:
		w.damage(w.path, fmt.Errorf("page %d has flags %#x, not a branch or leaf page", id, flags))
	}
}

func (w *walker) branch(id uint64, b []byte, lo, hi []byte, depth int) {
	type child struct {
		id  uint64
		key []byte
	}
	count := int(le.Uint16(b[10:]))
	if count == 0 || pageHeaderSize+count*elemSize > len(b) {
		w.damage(w.path, fmt.Errorf("page %d: %d branch elements do not fit", id, count))
		return
	}
	kids := make([]child, 0, count)
	for i := range count {
		at := pageHeaderSize + i*elemSize
		pos, ksize := uint64(le.Uint32(b[at:])), uint64(le.Uint32(b[at+4:]))
		end := uint64(at) + pos + ksize
		if end > uint64(len(b)) {
			w.damage(w.path, fmt.Errorf("page %d: branch element %d runs past the page", id, i))
			return
		}
		k := b[uint64(at)+pos : end]
		// The bounds bbolt's own check enforces: its page walk for the
		// freelist crashes the process on any error it finds (its goroutine
		// outlives the transaction), so this walk must find them first.
		if (i > 0 && bytes.Compare(kids[i-1].key, k) >= 0) || (i == 0 && lo != nil && bytes.Compare(k, lo) < 0) ||
			(hi != nil && bytes.Compare(k, hi) >= 0) {
			w.damage(w.path, fmt.Errorf("page %d: branch key %d out of order", id, i))
			return
		}
		kids = append(kids, child{le.Uint64(b[at+8:]), k})
	}
	for i, c := range kids {
		clo, chi := c.key, hi
		if i+1 < len(kids) {
			chi = kids[i+1].key
		}
		w.node(c.id, clo, chi, depth+1)
	}
}

// leaf reads a leaf page b (a real page, or an inline bucket's page held
// in a value).
func (w *walker) leaf(name string, b []byte, lo, hi []byte, depth int) {
	count := int(le.Uint16(b[10:]))
	if pageHeaderSize+count*elemSize > len(b) {
		w.damage(w.path, fmt.Errorf("%s: %d leaf elements do not fit", name, count))
		return
	}
	for i := range count {
		at := pageHeaderSize + i*elemSize
		flags := le.Uint32(b[at:])
		pos, ksize, vsize := uint64(le.Uint32(b[at+4:])), uint64(le.Uint32(b[at+8:])), uint64(le.Uint32(b[at+12:]))
		start := uint64(at) + pos
		if end := start + ksize + vsize; end > uint64(len(b)) {
			w.damage(w.path, fmt.Errorf("%s: leaf element %d runs past the page", name, i))
			return
		}
		k, v := b[start:start+ksize], b[start+ksize:start+ksize+vsize]
		if (lo != nil && bytes.Compare(k, lo) < 0) || (hi != nil && bytes.Compare(k, hi) >= 0) ||
			(w.lastKey != nil && bytes.Compare(k, w.lastKey) <= 0) {
			w.damage(w.path, fmt.Errorf("%s: key %d out of order", name, i))
			return
		}
		w.lastKey = k
		if len(w.path) == 0 && flags&leafBucket == 0 {
			w.damage(w.path, fmt.Errorf("%s: key %q in the root is not a bucket", name, k))
			continue
		}
		if flags&leafBucket != 0 {
			w.child(k, v, depth)
			continue
		}
		w.keys++
		if w.kv != nil {
			w.kv(w.path, k, v)
		}
	}
}

// child walks a nested bucket whose header is v.
func (w *walker) child(name, v []byte, depth int) {
	last := w.lastKey
	w.path = append(w.path, name)
	defer func() { w.path = w.path[:len(w.path)-1]; w.lastKey = last }()
	if len(v) < 16 {
		w.damage(w.path, fmt.Errorf("bucket header of %d bytes", len(v)))
		return
	}
	if w.bucket != nil {
		w.bucket(w.path)
	}
	if root := le.Uint64(v); root != 0 {
		w.tree(root, depth+1)
		return
	}
	inline := v[16:]
	if len(inline) < pageHeaderSize || le.Uint16(inline[8:]) != flagLeaf {
		w.damage(w.path, errors.New("inline bucket is not a leaf page"))
		return
	}
	w.lastKey = nil
	w.leaf("inline page", inline, nil, nil, depth+1)
}

// checkFreelist checks the freelist page the way bbolt will read it at a
// writable open: a freelist page, its count within the page and its
// overflow, every free page id in [2, high-water mark) and none of them
// the root. It is the cheap check of a file whose pages are not walked:
// bbolt trusts the list, so a garbled count would make it read past its
// mapping and a garbled id would hand out a page in use.
func (p *pageFile) checkFreelist() error {
	fl := p.meta.freelist
	if fl == noFreelist {
		return nil
	}
	b, err := p.page(fl)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if flags := le.Uint16(b[8:]); flags != flagFreelist {
		return fmt.Errorf("freelist page %d has flags %#x", fl, flags)
	}
	at, count := pageHeaderSize, uint64(le.Uint16(b[10:]))
	if count == 0xFFFF {
		if len(b) < pageHeaderSize+8 {
			return fmt.Errorf("freelist page %d: no count", fl)
		}
		count, at = le.Uint64(b[pageHeaderSize:]), pageHeaderSize+8
	}
	if count > uint64(len(b)-at)/8 {
		return fmt.Errorf("freelist page %d: %d ids do not fit in %d bytes", fl, count, len(b))
	}
	for i := range count {
		id := le.Uint64(b[at+int(i)*8:])
		if id < 2 || id >= p.meta.pgid || id == p.meta.root || id == fl {
			return fmt.Errorf("freelist page %d: free page id %d is the root, itself or outside [2, %d)", fl, id, p.meta.pgid)
		}
	}
	return nil
}
