package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newExportCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	var format, out string
	cmd := &cobra.Command{
		Use:   "export -c FILE [--format jsonl] [-o FILE]",
		Short: "Write one JSON object per URL the crawl decided on",
		Long: `Writes one JSON object per line for every URL the crawl decided on (fetched,
disallowed, failed or skipped; queued URLs are not decided yet), with the
fields url, state, status, depth, discovered_via, fetched_at (RFC 3339),
content_type, title, noindex, nofollow, links, error, and extras such as
parent, attempts, lastmod, etag and last_modified.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" {
				return usagef("export: --format %q: only jsonl is supported", format)
			}
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			w := stdout
			if out != "" && out != "-" {
				file, err := os.Create(out)
				if err != nil {
					return err
				}
				defer file.Close()
				w = file
			}
			return export(cfg.State, w)
		},
	}
	addCommonFlags(cmd, &f)
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format (jsonl)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

func export(path string, w io.Writer) error {
	db, err := openForReading(path)
	if err != nil {
		return err
	}
	defer db.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	err = db.View(func(tx *storage.Tx) error {
		if !tx.Initialised() {
			return nil
		}
		return tx.ForEachURL(func(r *storage.URLRecord) error {
			if r.State == storage.Queued {
				return nil
			}
			return enc.Encode(newExportRecord(r))
		})
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// ExportRecord is one line of the jsonl export. The first twelve fields
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

	Parent       string `json:"parent,omitempty"`
	Attempts     int    `json:"attempts,omitempty"`
	Lastmod      string `json:"lastmod,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Bytes        int64  `json:"bytes,omitempty"`
}

func newExportRecord(r *storage.URLRecord) ExportRecord {
	e := ExportRecord{URL: r.URL, State: string(r.State), Status: r.Status, Depth: r.Depth,
		DiscoveredVia: r.DiscoveredVia, ContentType: r.ContentType, Title: r.Title, NoIndex: r.NoIndex,
		NoFollow: r.NoFollow, Links: r.Links, Error: r.Error, Parent: r.Parent, Attempts: r.Attempts,
		ETag: r.ETag, LastModified: r.LastModified, Bytes: r.Bytes}
	if !r.FetchedAt.IsZero() {
		e.FetchedAt = r.FetchedAt.UTC().Format(time.RFC3339)
	}
	if !r.Lastmod.IsZero() {
		e.Lastmod = r.Lastmod.UTC().Format(time.RFC3339)
	}
	if e.Links == nil {
		e.Links = []string{}
	}
	return e
}
