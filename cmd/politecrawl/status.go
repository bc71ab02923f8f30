package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newStatusCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	var asJSON, hosts bool
	cmd := &cobra.Command{
		Use:   "status -c FILE [--json | --hosts]",
		Short: "Show a crawl's counts: from the running daemon, or from the state file",
		Long: `Shows queued, in flight, fetched, disallowed, failed and skipped URLs, hosts,
and a line per host. While a crawl holds the state file, status asks it
(through its control socket, else http.listen). --hosts prints the
per-host table the console shows: each host's state (waiting until,
backing off, robots.txt unreachable, ...), its URLs by outcome, its delay
and where it came from. --json and --hosts are either/or: the JSON holds
every host's line (per_host).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON && hosts {
				return usagef("status: --json and --hosts are either/or: --json already holds every host's line (per_host)")
			}
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			if cfg.Cluster.enabled() {
				if hosts {
					return usagef("status --hosts: not for a cluster's whole crawl (each node's console, /hosts on its http.listen, shows its own hosts)")
				}
				return clusterStatus(cmd.Context(), cfg, stdout, asJSON)
			}
			st, err := getStatus(cfg)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			if hosts {
				printHostsTable(stdout, st)
				return nil
			}
			printStatus(stdout, st)
			return nil
		},
	}
	addCommonFlags(cmd, &f)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&hosts, "hosts", false, "print the per-host table (state, counts by outcome, delay)")
	return cmd
}

// getStatus reads the state file, or asks the crawl that holds it.
func getStatus(cfg *Config) (*status.Status, error) {
	db, err := openForReading(cfg.State)
	if errors.Is(err, storage.ErrLocked) {
		var st status.Status
		api := apiOf(cfg)
		if err := api.getJSON("/status", &st); err != nil {
			return nil, err
		}
		return &st, nil
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return status.Read(db, time.Now(), cfg.adaptive())
}

// getJSON asks the running crawl for path and decodes its JSON answer.
func (a crawlAPI) getJSON(path string, v any) error {
	resp, err := a.do("GET", path, "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("a crawl is running on %s: GET %s: HTTP %d", a.state, path, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v)
}

func printStatus(w io.Writer, st *status.Status) {
	state := "stopped"
	if st.Running {
		state = "running"
	}
	fmt.Fprintf(w, "state file  %s (%s)\n", st.State, state)
	fmt.Fprintf(w, "queued      %d\nin flight   %d\nfetched     %d\ndisallowed  %d\nfailed      %d\nskipped     %d\nhosts       %d\n",
		st.Queued, st.InFlight, st.Fetched, st.Disallowed, st.Failed, st.Skipped, st.Hosts)
	if urls, hosts := heldByPause(st); len(hosts) > 0 {
		// Queued, but asked nothing until resumed: a one-shot run ends
		// without them (see frontier.Held).
		fmt.Fprintf(w, "paused      queued URLs on hosts you paused: %d (%s); politecrawl host resume HOST... ends a pause\n",
			urls, frontier.Held{Hosts: hosts}.Names(5))
	}
	if st.Recrawls > 0 {
		fmt.Fprintf(w, "recrawls    %d scheduled, %d due within the hour\n", st.Recrawls, st.RechecksNextHour)
	}
	if st.EstimatedFreshness > 0 {
		// The model's long-run figure (frontier/freshness): pages just
		// fetched are current now, yet a 24h fixed schedule reads about
		// 65%, from a change a day assumed of pages never rechecked.
		fmt.Fprintf(w, "freshness   %.1f%% of pages current on average over time (estimated; not now), rechecked every %v on average\n",
			100*st.EstimatedFreshness, roundInterval(time.Duration(st.MeanIntervalS*float64(time.Second))))
		fmt.Fprintf(w, "            (from each page's change rate: measured by its rechecks; before them, from its sitemap entry or one change per recrawl_interval)\n")
	}
	if len(st.PerHost) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tIP\tQUEUED\tROBOTS.TXT\tDELAY\tNEXT REQUEST\tLAST REQUEST\tLAST ERROR")
	for _, h := range st.PerHost {
		ip := h.IP
		if ip == "" {
			ip = "-"
		}
		delay := time.Duration(h.IntervalS * float64(time.Second)).Round(time.Millisecond).String()
		if h.DelayReason != "" {
			delay += " (" + h.DelayReason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", h.Host, ip, h.Queued, h.Robots,
			delay, nextRequest(h), stamp(h.LastRequest), h.LastError)
	}
	tw.Flush()
	printIPGroups(w, st)
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
		if sm.Diverted > 0 {
			fmt.Fprintf(w, ", %d handed to their hosts' nodes", sm.Diverted)
		}
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

// printIPGroups lists the IPs that serve more than one host: the groups
// politeness.ip_max_in_flight and ip_delay apply to.
func printIPGroups(w io.Writer, st *status.Status) {
	groups := map[string][]string{}
	for _, h := range st.PerHost {
		if h.IP != "" {
			groups[h.IP] = append(groups[h.IP], h.Host)
		}
	}
	var shared []string
	for ip, hosts := range groups {
		if len(hosts) > 1 {
			shared = append(shared, ip)
		}
	}
	if len(shared) == 0 {
		return
	}
	sort.Strings(shared)
	fmt.Fprintf(w, "\nshared IPs (limited together: politeness.ip_max_in_flight, ip_delay)\n")
	for _, ip := range shared {
		hosts := groups[ip]
		more := ""
		if len(hosts) > 5 {
			hosts, more = hosts[:5], fmt.Sprintf(" and %d more", len(groups[ip])-5)
		}
		fmt.Fprintf(w, "  %s: %d hosts (%s%s)\n", ip, len(groups[ip]), strings.Join(hosts, ", "), more)
	}
}

func nextRequest(h status.Host) string {
	switch {
	case h.InFlight:
		return "in flight"
	case h.NextRequest.IsZero():
		return "-"
	}
	return stamp(h.NextRequest)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// roundInterval rounds a mean recheck interval to what is worth reading:
// seconds under an hour, minutes above.
func roundInterval(d time.Duration) time.Duration {
	if d < time.Hour {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

// heldByPause is the URLs queued on the hosts the operator paused, and
// those hosts, from the status's per-host lines (live, or read from a
// stopped crawl's file: both mark them StatePaused by WhyOperator; other
// pauses, a cluster's fence or a robots.txt redirect, are not the
// operator's to resume).
func heldByPause(st *status.Status) (urls int, hosts []string) {
	for _, h := range st.PerHost {
		if h.State == status.StatePaused && h.Why == status.WhyOperator {
			urls += h.Queued
			hosts = append(hosts, h.Host)
		}
	}
	return urls, hosts
}
