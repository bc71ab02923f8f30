package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
)

// printHostsTable is `status --hosts`: a line per host with what the
// console's hosts table shows (the same snapshot), most queued first.
// From a state file no crawl holds, the live columns (state, next
// request) are empty, but for the state of a host the operator paused.
func printHostsTable(w io.Writer, st *status.Status) {
	hosts := append([]status.Host(nil), st.PerHost...)
	sort.SliceStable(hosts, func(i, j int) bool { return hosts[i].Queued > hosts[j].Queued })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTATE\tUNTIL\tQUEUED\tFETCHED\tDISALLOWED\tSKIPPED\tFAILED\tDELAY\tLAST STATUS\tIP\tWHY / LAST ERROR")
	for _, h := range hosts {
		state, until := h.State, "-"
		if state == "" {
			state = "-"
		}
		if !h.Until.IsZero() {
			until = stamp(h.Until)
		}
		delay := time.Duration(h.IntervalS * float64(time.Second)).Round(time.Millisecond).String()
		if h.DelayFrom != "" {
			delay += " (" + h.DelayFrom + ")"
		}
		last := "-"
		if h.LastStatus != 0 {
			last = fmt.Sprint(h.LastStatus)
		}
		why := h.Why
		if why == "" {
			why = h.LastError
		}
		ip := h.IP
		if ip == "" {
			ip = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", h.Host, state, until, h.Queued, h.Fetched, h.Disallowed,
			h.Skipped, h.Failed, delay, last, ip, why)
	}
	tw.Flush()
}
