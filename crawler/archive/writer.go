package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OpenSuffix marks a file still being written.
const OpenSuffix = ".open"

// Sentinel errors.
var (
	// ErrClosed is returned by Write after Close.
	ErrClosed = errors.New("archive writer is closed")
	// ErrDirInUse is returned by Open when another Writer (another crawl)
	// holds the directory.
	ErrDirInUse = errors.New("in use by another crawl")
)

// Field is one "name: value" line of a warcinfo or metadata record
// (application/warc-fields).
type Field struct{ Name, Value string }

// Options configure a Writer. Zero values take the defaults shown.
type Options struct {
	Dir      string // where the files go (created if missing)
	Prefix   string // first part of every file name ("politecrawl")
	MaxSize  int64  // a file is closed once it reaches this size (1 GiB)
	Compress bool   // one gzip member per record (.warc.gz), else .warc
	Hostname string // the crawling host, for file names ("localhost")
	// Info is the body of the warcinfo record that starts each file,
	// after the format and conformsTo lines: software, operator, robots
	// policy and so on.
	Info   []Field
	Now    func() time.Time // file-name timestamps and warcinfo dates (time.Now)
	Logger *slog.Logger     // nil: discard
}

func (o *Options) defaults() {
	if o.Prefix == "" {
		o.Prefix = "politecrawl"
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 1 << 30
	}
	if o.Hostname == "" {
		o.Hostname = "localhost"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Writer appends records to the files of one directory. It is safe for
// concurrent use. Create it with Open; Close it to seal the last file.
type Writer struct {
	opts Options

	mu      sync.Mutex
	f       *os.File
	name    string // final name of the open file (without OpenSuffix)
	size    int64
	serial  int
	dirty   bool // written since the last Sync
	closed  bool
	lock    *os.File // held until Close (nil where there is no flock)
	digests map[string]Capture
	zpool   sync.Pool // *gzip.Writer
	bufs    sync.Pool // *serialised
	index   []string  // CDXJ lines of the open file, for its .cdxj
}

// Open prepares a Writer on opts.Dir: it creates the directory and
// recovers every file a killed process left open (see Recover). The
// first file is started by the first Write; its serial follows the
// highest one already in the directory for opts.Prefix, so the files of
// successive runs continue one sequence.
func Open(opts Options) (*Writer, error) {
	opts.defaults()
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc dir %q: %w", opts.Dir, err)
	}
	lock, err := lockDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	recovered, err := Recover(opts.Dir)
	if err != nil {
		unlock(lock)
		return nil, err
	}
	for _, r := range recovered {
		opts.Logger.Warn("recovered WARC file left open", "file", r.File, "records", r.Records, "truncated_bytes", r.Dropped)
	}
	serial, err := nextSerial(opts.Dir, opts.Prefix)
	if err != nil {
		unlock(lock)
		return nil, err
	}
	w := &Writer{opts: opts, digests: map[string]Capture{}, lock: lock, serial: serial}
	w.zpool.New = func() any { return gzip.NewWriter(nil) }
	w.bufs.New = func() any { return new(serialised) }
	return w, nil
}

// Dir is the directory the Writer writes into.
func (w *Writer) Dir() string { return w.opts.Dir }

// Remember adds an archived capture to the digest index, so that a later
// payload with the same digest is written as a revisit. The crawler calls
// it for the captures persisted in its state file.
func (w *Writer) Remember(c Capture) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.digests[c.Digest]; !ok {
		w.digests[c.Digest] = c
	}
}

// Sync flushes the open file to stable storage: records whose Write
// returned before Sync was called survive a crash or power loss once it
// returns. Writes go on meanwhile (the lock is not held during the fsync).
func (w *Writer) Sync() error {
	w.mu.Lock()
	f, name, dirty := w.f, w.name, w.dirty
	w.dirty = false
	w.mu.Unlock()
	if f == nil || !dirty {
		return nil
	}
	if err := f.Sync(); err != nil {
		if errors.Is(err, os.ErrClosed) {
			return nil // sealed meanwhile, and seal synced it first
		}
		return fmt.Errorf("sync %s: %w", name, err)
	}
	return nil
}

// Close seals the open file (sync, then rename without OpenSuffix). It
// is idempotent; Write fails after it.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.seal()
	unlock(w.lock)
	return err
}

func unlock(f *os.File) {
	if f != nil {
		f.Close() // closing the file releases the flock
	}
}

// seal closes and renames the open file, if any.
func (w *Writer) seal() error {
	if w.f == nil {
		return nil
	}
	f, final := w.f, filepath.Join(w.opts.Dir, w.name)
	w.f = nil
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", w.name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", w.name, err)
	}
	if err := os.Rename(final+OpenSuffix, final); err != nil {
		return fmt.Errorf("seal %s: %w", w.name, err)
	}
	if err := writeIndex(final, w.index); err != nil {
		// The WARC file is what counts; its index can be made again.
		w.opts.Logger.Warn("WARC file index not written", "file", w.name, "error", err)
	}
	w.index = nil
	return syncDir(w.opts.Dir)
}

// rotate starts a new file when none is open or the open one is full.
func (w *Writer) rotate() error {
	if w.f != nil && w.size < w.opts.MaxSize {
		return nil
	}
	if err := w.seal(); err != nil {
		return err
	}
	now := w.opts.Now().UTC()
	ext := ".warc"
	if w.opts.Compress {
		ext = ".warc.gz"
	}
	for {
		name := fmt.Sprintf("%s-%s%03d-%05d-%s%s", w.opts.Prefix, now.Format("20060102150405"), now.Nanosecond()/1e6, w.serial, w.opts.Hostname, ext)
		w.serial++
		path := filepath.Join(w.opts.Dir, name)
		if exists(path) {
			continue
		}
		f, err := os.OpenFile(path+OpenSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create WARC file: %w", err)
		}
		w.f, w.name, w.size, w.index = f, name, 0, nil
		break
	}
	// The new name must survive a power loss as surely as the records
	// that Sync will make durable in it.
	if err := syncDir(w.opts.Dir); err != nil {
		return err
	}
	info := []*record{w.warcinfo(now)}
	return w.write(w.serialise(info), info)
}

func (w *Writer) warcinfo(now time.Time) *record {
	var body bytes.Buffer
	fields := append([]Field{{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"}}, w.opts.Info...)
	for _, f := range fields {
		fmt.Fprintf(&body, "%s: %s\r\n", f.Name, f.Value)
	}
	r := &record{typ: TypeWarcinfo, id: newID(), date: now, ctype: "application/warc-fields", block: body.Bytes()}
	r.add("WARC-Filename", w.name)
	r.add("WARC-Block-Digest", Digest(r.block))
	return r
}

// serialised is the bytes of some records, reused through Writer.bufs.
type serialised struct {
	data, plain bytes.Buffer
	spans       []int // spans[i] is where record i ends in data
}

// serialise turns records into the bytes of the file, each record a gzip
// member of its own when Compress is set. Give the result back to
// w.bufs once written.
func (w *Writer) serialise(recs []*record) *serialised {
	s := w.bufs.Get().(*serialised)
	s.data.Reset()
	s.spans = s.spans[:0]
	var zw *gzip.Writer
	if w.opts.Compress {
		zw = w.zpool.Get().(*gzip.Writer)
		defer w.zpool.Put(zw)
	}
	for _, r := range recs {
		if zw == nil {
			r.marshal(&s.data)
		} else {
			s.plain.Reset()
			r.marshal(&s.plain)
			zw.Reset(&s.data)
			zw.Write(s.plain.Bytes()) // writes to a bytes.Buffer do not fail
			zw.Close()
		}
		s.spans = append(s.spans, s.data.Len())
	}
	return s
}

// write appends the serialised recs to the open file with one write
// call, and notes their index lines.
func (w *Writer) write(s *serialised, recs []*record) error {
	defer w.bufs.Put(s)
	start := w.size
	n, err := w.f.Write(s.data.Bytes())
	w.size += int64(n)
	w.dirty = true
	if err != nil {
		return fmt.Errorf("write %s: %w", w.name, err)
	}
	prev := 0
	for i, r := range recs {
		if r.index != nil {
			c := *r.index
			c.Offset, c.Length, c.Filename = start+int64(prev), int64(s.spans[i]-prev), w.name
			if !w.opts.Compress {
				c.Length -= 4 // see IndexEntry
			}
			w.index = append(w.index, c.String())
		}
		prev = s.spans[i]
	}
	return nil
}

// nextSerial returns one past the highest serial of the files named
// PREFIX-TIMESTAMP-SERIAL-… in dir (their indexes and .open files
// included), 0 when there are none.
func nextSerial(dir, prefix string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("warc dir %q: %w", dir, err)
	}
	next := 0
	for _, e := range entries {
		if n, ok := fileSerial(e.Name(), prefix); ok && n >= next {
			next = n + 1
		}
	}
	return next, nil
}

// fileSerial reads the serial of a file name written by rotate for
// prefix: PREFIX-, a 17-digit timestamp, -, the serial's digits, -.
func fileSerial(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok || len(rest) < 18 || rest[17] != '-' || !allDigits(rest[:17]) {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest[18:], "-")
	if !ok || !allDigits(digits) {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir %q: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %q: %w", dir, err)
	}
	return nil
}
