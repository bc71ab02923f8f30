package console

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler/status"
)

// The hosts table's sort keys.
const (
	SortQueued  = "queued"
	SortFetched = "fetched"
	SortErrors  = "errors"
	SortNext    = "next request"
	SortName    = "name"
)

var sortChoices = []string{SortQueued, SortFetched, SortErrors, SortNext, SortName}

var stateChoices = []string{status.StateFetching, status.StateReady, status.StateWaiting, status.StateBackingOff,
	status.StateRobotsUnreachable, status.StateRobotsGaveUp, status.StateRobotsFetching, status.StateHeld,
	status.StatePaused, status.StateBusy, status.StateDone}

// Query is what the hosts table shows: a filter by name (a substring) and
// state, a sort key and a page.
type Query struct {
	Q, State, Sort string
	Page, Per      int
}

const (
	defaultPer = 100
	maxPer     = 1000
)

// parseQuery reads a Query from a URL's parameters, with safe defaults
// for anything missing or out of range.
func parseQuery(v url.Values) Query {
	q := Query{Q: strings.TrimSpace(v.Get("q")), State: v.Get("state"), Sort: v.Get("sort"), Page: 1, Per: defaultPer}
	if !slices.Contains(sortChoices, q.Sort) {
		q.Sort = SortQueued
	}
	if !slices.Contains(stateChoices, q.State) {
		q.State = ""
	}
	if n, err := strconv.Atoi(v.Get("page")); err == nil && n > 0 {
		q.Page = n
	}
	if n, err := strconv.Atoi(v.Get("per")); err == nil && n > 0 {
		q.Per = min(n, maxPer)
	}
	return q
}

func (q Query) url(page int) string {
	v := url.Values{}
	if q.Q != "" {
		v.Set("q", q.Q)
	}
	if q.State != "" {
		v.Set("state", q.State)
	}
	v.Set("sort", q.Sort)
	v.Set("per", strconv.Itoa(q.Per))
	v.Set("page", strconv.Itoa(page))
	return "/hosts?" + v.Encode()
}

// hostsPage is one page of the hosts table.
type hostsPage struct {
	Query
	Rows                      []status.Host
	Total, Matched            int
	First, Last, Pages        int
	Prev, Next                string
	SortChoices, StateChoices []string
}

// newHostsPage filters, sorts and pages hosts (left as they are: the
// snapshot is shared). Only the matching rows' indices are sorted, and
// only as far as the page needs: a partial selection would do too, but a
// full sort of 100,000 indices is well inside the budget
// (BenchmarkConsoleHosts100k).
func newHostsPage(hosts []status.Host, q Query) *hostsPage {
	p := &hostsPage{Query: q, Total: len(hosts), SortChoices: sortChoices, StateChoices: stateChoices}
	idx := make([]int32, 0, len(hosts))
	needle := strings.ToLower(q.Q)
	for i := range hosts {
		h := &hosts[i]
		if q.State != "" && h.State != q.State || needle != "" && !strings.Contains(h.Host, needle) {
			continue
		}
		idx = append(idx, int32(i))
	}
	p.Matched = len(idx)
	slices.SortStableFunc(idx, compareBy(hosts, q.Sort))
	p.Pages = max(1, (len(idx)+q.Per-1)/q.Per)
	p.Page = min(q.Page, p.Pages)
	from := (p.Page - 1) * q.Per
	to := min(from+q.Per, len(idx))
	for _, i := range idx[from:to] {
		p.Rows = append(p.Rows, hosts[i])
	}
	if len(idx) > 0 {
		p.First, p.Last = from+1, to
	}
	if p.Page > 1 {
		p.Prev = p.Query.url(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = p.Query.url(p.Page + 1)
	}
	return p
}

// compareBy orders host indices by key: counts largest first, the next
// request soonest first (hosts with none last), names in order; ties by
// name.
func compareBy(hosts []status.Host, key string) func(a, b int32) int {
	byName := func(a, b int32) int { return strings.Compare(hosts[a].Host, hosts[b].Host) }
	desc := func(f func(h *status.Host) int) func(a, b int32) int {
		return func(a, b int32) int {
			if x, y := f(&hosts[a]), f(&hosts[b]); x != y {
				if x > y {
					return -1
				}
				return 1
			}
			return byName(a, b)
		}
	}
	switch key {
	case SortFetched:
		return desc(func(h *status.Host) int { return h.Fetched })
	case SortErrors:
		return desc(func(h *status.Host) int { return h.Failed })
	case SortNext:
		return func(a, b int32) int {
			x, y := nextKey(&hosts[a]), nextKey(&hosts[b])
			if c := x.Compare(y); c != 0 {
				return c
			}
			return byName(a, b)
		}
	case SortName:
		return byName
	}
	return desc(func(h *status.Host) int { return h.Queued })
}

// far sorts hosts with no next request after every real time.
var far = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

func nextKey(h *status.Host) time.Time {
	switch {
	case h.InFlight:
		return time.Time{}
	case h.NextRequest.IsZero():
		return far
	}
	return h.NextRequest
}
