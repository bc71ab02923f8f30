package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

// Status is what `status --json` prints.
type Status struct {
	State      string       `json:"state"`
	Running    bool         `json:"running"`
	Queued     int          `json:"queued"`
	InFlight   int          `json:"in_flight"`
	Fetched    int          `json:"fetched"`
	Disallowed int          `json:"disallowed"`
	Failed     int          `json:"failed"`
	Skipped    int          `json:"skipped"`
	Hosts      int          `json:"hosts"`
	PerHost    []HostStatus `json:"per_host"`
}

// HostStatus is one host's line of the status.
type HostStatus struct {
	Host        string        `json:"host"`
	Queued      int           `json:"queued"`
	Robots      string        `json:"robots"` // outcome per origin, "unknown" before the first fetch
	IntervalS   float64       `json:"interval_s"`
	LastRequest time.Time     `json:"last_request,omitzero"`
	HoldUntil   time.Time     `json:"hold_until,omitzero"`
	LastError   string        `json:"last_error,omitempty"`
	Sitemaps    *SitemapStats `json:"sitemaps,omitempty"`
}

// SitemapStats counts one host's sitemap files and what they listed.
type SitemapStats struct {
	Read     int            `json:"read"`
	Pending  int            `json:"pending"`
	Refused  int            `json:"refused"` // failed, disallowed or over the cap
	Listed   int            `json:"listed"`
	Accepted int            `json:"accepted"`
	Dropped  map[string]int `json:"dropped"`
}

func newStatusCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status -c FILE [--json]",
		Short: "Show the counts of a crawl's state file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			st, err := readStatus(cfg.State)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			printStatus(stdout, st)
			return nil
		},
	}
	addCommonFlags(cmd, &f)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// openForReading opens a state file read-only, failing at once with a
// clear message when a crawl holds it or it does not exist.
func openForReading(path string) (*storage.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no state file at %s (has a crawl run with this config?)", path)
	}
	db, err := storage.OpenReadOnly(path, storage.Options{Timeout: 300 * time.Millisecond})
	if errors.Is(err, storage.ErrLocked) {
		return nil, fmt.Errorf("a crawl is running on %s and holds it locked; stop it (SIGTERM) to read the file", path)
	}
	return db, err
}

func readStatus(path string) (*Status, error) {
	db, err := openForReading(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	st := &Status{State: path, PerHost: []HostStatus{}}
	err = db.View(func(tx *storage.Tx) error {
		if !tx.Initialised() {
			return nil
		}
		c := tx.Counts()
		st.Queued, st.Fetched, st.Disallowed, st.Failed, st.Skipped = c[storage.Queued], c[storage.Fetched], c[storage.Disallowed], c[storage.Failed], c[storage.Skipped]
		hosts := map[string]*HostStatus{}
		get := func(h string) *HostStatus {
			if hosts[h] == nil {
				hosts[h] = &HostStatus{Host: h, Robots: "unknown"}
			}
			return hosts[h]
		}
		tx.ForEachHost(func(h string, r storage.HostRecord) error {
			s := get(h)
			s.IntervalS, s.LastRequest, s.HoldUntil, s.LastError = r.Interval, r.LastRequest, r.HoldUntil, r.LastError
			return nil
		})
		tx.QueuedHosts(func(h string, n int) error { get(h).Queued = n; return nil })
		tx.ForEachRobots(func(origin string, r *storage.RobotsRecord) error {
			s := get(authorityOf(origin))
			if s.Robots == "unknown" {
				s.Robots = ""
			} else {
				s.Robots += ", "
			}
			s.Robots += r.Outcome
			if r.Status != 0 {
				s.Robots += fmt.Sprintf(" (%d)", r.Status)
			}
			return nil
		})
		tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
			s := get(r.Host)
			if s.Sitemaps == nil {
				s.Sitemaps = &SitemapStats{Dropped: map[string]int{}}
			}
			sm := s.Sitemaps
			switch r.State {
			case "read":
				sm.Read++
			case "pending":
				sm.Pending++
			default:
				sm.Refused++
			}
			sm.Listed += r.Listed
			sm.Accepted += r.Accepted
			for k, n := range r.Dropped {
				sm.Dropped[k] += n
			}
			return nil
		})
		for _, h := range hosts {
			st.PerHost = append(st.PerHost, *h)
		}
		return nil
	})
	sort.Slice(st.PerHost, func(i, j int) bool { return st.PerHost[i].Host < st.PerHost[j].Host })
	st.Hosts = len(st.PerHost)
	return st, err
}

func authorityOf(origin string) string {
	for i := 0; i+3 <= len(origin); i++ {
		if origin[i:i+3] == "://" {
			return origin[i+3:]
		}
	}
	return origin
}

func printStatus(w io.Writer, st *Status) {
	fmt.Fprintf(w, "state file  %s\n", st.State)
	fmt.Fprintf(w, "queued      %d\nin flight   %d\nfetched     %d\ndisallowed  %d\nfailed      %d\nskipped     %d\nhosts       %d\n",
		st.Queued, st.InFlight, st.Fetched, st.Disallowed, st.Failed, st.Skipped, st.Hosts)
	if len(st.PerHost) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tQUEUED\tROBOTS.TXT\tDELAY\tLAST REQUEST\tLAST ERROR")
	for _, h := range st.PerHost {
		last := "-"
		if !h.LastRequest.IsZero() {
			last = h.LastRequest.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%v\t%s\t%s\n", h.Host, h.Queued, h.Robots,
			time.Duration(h.IntervalS*float64(time.Second)).Round(time.Millisecond), last, h.LastError)
	}
	tw.Flush()
	first := true
	for _, h := range st.PerHost {
		sm := h.Sitemaps
		if sm == nil {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nsitemaps\n")
			first = false
		}
		fmt.Fprintf(w, "  %s: %d read, %d pending, %d refused; %d URLs listed, %d accepted", h.Host, sm.Read, sm.Pending, sm.Refused, sm.Listed, sm.Accepted)
		keys := make([]string, 0, len(sm.Dropped))
		for k := range sm.Dropped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "; %d dropped: %s", sm.Dropped[k], k)
		}
		fmt.Fprintln(w)
	}
}
