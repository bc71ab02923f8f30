package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/archive"
	"github.com/politecrawl/politecrawl/crawler/contentuse"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newExportCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	var format, out string
	cmd := &cobra.Command{
		Use:   "export -c FILE [--format jsonl|cdxj] [-o FILE]",
		Short: "Write one JSON object per URL the crawl decided on",
		Long: `Writes one JSON object per line for every URL the crawl decided on (fetched,
disallowed, failed or skipped; queued URLs are not decided yet), with the
fields url, state, status, depth, discovered_via, fetched_at (RFC 3339),
content_type, title, noindex, nofollow, links, error, content_use (what the
site's content-use signals say of each use: value yes, no or unspecified,
and the signal's source; {} when none were read: a URL refused by them
before a request has those that refused it), and extras such as
parent, attempts, lastmod, etag, last_modified, checked_at, next_check and
payload_digest.

--format cdxj writes instead the CDXJ index (as pywb reads it) of the
WARC files in warc.dir: one line per response or revisit record, sorted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" && format != "cdxj" {
				return usagef("export: --format %q: jsonl or cdxj", format)
			}
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			write := export
			if cfg.Cluster.enabled() {
				write = func(cfg *Config, w io.Writer) error { return clusterExport(cmd.Context(), cfg, w) }
			}
			if format == "cdxj" {
				write = cdxjIndex
			}
			if out == "" || out == "-" {
				return write(cfg, stdout)
			}
			return writeFileAtomic(out, func(w io.Writer) error { return write(cfg, w) })
		},
	}
	addCommonFlags(cmd, &f)
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl (the state file) or cdxj (the WARC files)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout (replaced only once the export is complete)")
	return cmd
}

// cdxjIndex writes the CDXJ index of the crawl's WARC files. A warc.dir
// that does not exist is said in the config's words: "list WARC files:
// open warc: no such file or directory" did not say that warc.enabled was
// off.
func cdxjIndex(cfg *Config, w io.Writer) error {
	dir := cfg.warcDir()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if !cfg.WARC.Enabled {
			return fmt.Errorf("export --format cdxj: warc.enabled is false, so no WARC files were written (%s does not exist); "+
				"set warc.enabled: true for the next run, or give the config the crawl ran with", dir)
		}
		return fmt.Errorf("export --format cdxj: no WARC files written yet: %s does not exist (has a crawl run with this config?)", dir)
	}
	return archive.Index(dir, w)
}

// writeFileAtomic writes path through a temporary file in the same folder,
// renamed over path only once fill succeeded and the data is on disk: a
// failed export leaves an existing file as it was.
func writeFileAtomic(path string, fill func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		// Said before the export, not as the rename's "file exists".
		return fmt.Errorf("export to %s: it is a folder; give -o a file name", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// Of the user's path, not the temporary name tried beside it.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(path), pe.Err)
		}
		return fmt.Errorf("export to %s: %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("export to %s: %w", path, err)
	}
	ok = true
	return nil
}

// export writes the jsonl export of the crawl on cfg.State: from the file,
// or, while a crawl holds it, from that crawl.
func export(cfg *Config, w io.Writer) error {
	db, err := openForReading(cfg.State)
	if errors.Is(err, storage.ErrLocked) {
		return exportFromCrawl(apiOf(cfg), w)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return writeExport(db, w)
}

// exportPage is how many records one read transaction of an export covers.
const exportPage = 2000

// writeExport writes every decided URL of db as one JSON line. It reads in
// pages of short transactions, so that a crawl running on db is not held
// up: each record is as committed, and each URL appears once.
func writeExport(db *storage.DB, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	after, more := "", true
	for more {
		err := db.View(func(tx *storage.Tx) error {
			if !tx.Initialised() {
				more = false
				return nil
			}
			var err error
			after, more, err = tx.ForEachURLAfter(after, exportPage, func(r *storage.URLRecord) error {
				if r.State == storage.Queued {
					return nil
				}
				return enc.Encode(newExportRecord(r))
			})
			return err
		})
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// exportTrailer carries an error that happened after the export's first
// bytes were sent: a response without it is incomplete.
const exportTrailer = "X-Export-Error"

// exportFromCrawl streams the export from the running crawl's /export.
func exportFromCrawl(api crawlAPI, w io.Writer) error {
	resp, err := api.do("GET", "/export", "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("a crawl is running on %s: GET /export: HTTP %d", api.state, resp.StatusCode)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("export from the running crawl: %w", err)
	}
	msg, ok := resp.Trailer[http.CanonicalHeaderKey(exportTrailer)]
	switch {
	case !ok:
		return fmt.Errorf("export from the running crawl: incomplete (it stopped while sending)")
	case len(msg) > 0 && msg[0] != "" && msg[0] != "ok":
		return fmt.Errorf("export from the running crawl: %s", msg[0])
	}
	return nil
}

// serveExport is the daemon's GET /export.
func serveExport(db *storage.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Trailer", exportTrailer)
		msg := "ok"
		if err := writeExport(db, w); err != nil {
			msg = err.Error()
		}
		w.Header().Set(exportTrailer, msg)
	}
}

// ExportRecord is one line of the jsonl export. The first thirteen fields
// are pinned (other tools read them) and always present; the rest are
// extras, left out when empty.
type ExportRecord struct {
	URL           string   `json:"url"`
	State         string   `json:"state"`
	Status        int      `json:"status"`
	Depth         int      `json:"depth"`
	DiscoveredVia string   `json:"discovered_via"`
	FetchedAt     string   `json:"fetched_at"` // RFC 3339, "" when never fetched
	ContentType   string   `json:"content_type"`
	Title         string   `json:"title"`
	NoIndex       bool     `json:"noindex"`
	NoFollow      bool     `json:"nofollow"`
	Links         []string `json:"links"`
	Error         string   `json:"error"`
	// ContentUse is pinned too: by use (search, ai-train, ai-input, ...,
	// and unknown labels as written), what the site's signals said when
	// the URL was fetched, or refused by them before a request. {} when
	// none were read (never fetched otherwise).
	ContentUse map[string]storage.ContentUse `json:"content_use"`

	Parent       string `json:"parent,omitempty"`
	Attempts     int    `json:"attempts,omitempty"`
	Lastmod      string `json:"lastmod,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Bytes        int64  `json:"bytes,omitempty"`
	LinksDropped int    `json:"links_dropped,omitempty"` // links past limits.max_links_per_page, not queued
	// CheckedAt is the last time a fetch or a recheck saw the page (a 304
	// confirms it unchanged), NextCheck when it is due again ("queued"
	// while its recheck waits in the queue), PayloadDigest the WARC
	// payload digest of the body last archived.
	CheckedAt     string `json:"checked_at,omitempty"`
	NextCheck     string `json:"next_check,omitempty"`
	PayloadDigest string `json:"payload_digest,omitempty"`
	// Why explains a refused URL (skipped or disallowed) in one line: its
	// state and the rule that refused it, as `politecrawl why` says it.
	Why string `json:"why,omitempty"`
}

func newExportRecord(r *storage.URLRecord) ExportRecord {
	e := ExportRecord{URL: r.URL, State: string(r.State), Status: r.Status, Depth: r.Depth,
		DiscoveredVia: r.DiscoveredVia, ContentType: r.ContentType, Title: r.Title, NoIndex: r.NoIndex,
		NoFollow: r.NoFollow, Links: r.Links, Error: r.Error, Parent: r.Parent, Attempts: r.Attempts,
		ETag: r.ETag, LastModified: r.LastModified, Bytes: r.Bytes, LinksDropped: r.LinksDropped}
	if !r.FetchedAt.IsZero() {
		e.FetchedAt = r.FetchedAt.UTC().Format(time.RFC3339)
	}
	if !r.Lastmod.IsZero() {
		e.Lastmod = r.Lastmod.UTC().Format(time.RFC3339)
	}
	if !r.CheckedAt.IsZero() {
		e.CheckedAt = r.CheckedAt.UTC().Format(time.RFC3339)
	}
	switch {
	case r.NextCheck.Equal(storage.CheckQueued):
		e.NextCheck = "queued"
	case r.Scheduled():
		e.NextCheck = r.NextCheck.UTC().Format(time.RFC3339)
	}
	e.PayloadDigest = r.PayloadDigest
	e.ContentUse = exportContentUse(r)
	if r.State == storage.Skipped || r.State == storage.Disallowed {
		e.Why = crawler.RecordWhy(r)
	}
	if e.Links == nil {
		e.Links = []string{}
	}
	return e
}

// exportContentUse is a record's content_use: the uses its signals spoke
// of, and, once the URL was fetched (its signals read), every other known
// use as unspecified; {} for a URL never fetched.
func exportContentUse(r *storage.URLRecord) map[string]storage.ContentUse {
	out := make(map[string]storage.ContentUse, len(contentuse.Known)+len(r.ContentUse))
	for k, v := range r.ContentUse {
		out[k] = v
	}
	if r.FetchedAt.IsZero() {
		return out
	}
	for _, k := range contentuse.Known {
		if _, ok := out[k]; !ok {
			out[k] = storage.ContentUse{Value: contentuse.Unspecified.String()}
		}
	}
	return out
}
