// Package status is a crawl's state as people read it: what `politecrawl
// status` prints and the daemon's /status serves, read from the state file
// (Read), and completed by a running crawl with what only it knows (the
// requests under way, when each host's slot opens, its IP group).
package status

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// Status is the state of a crawl: what `politecrawl status` prints and the
// daemon's /status endpoint serves. Read from a file no crawl holds it
// has Running false and no live fields.
type Status struct {
	State      string `json:"state"`
	Running    bool   `json:"running"`
	Queued     int    `json:"queued"`
	InFlight   int    `json:"in_flight"`
	Fetched    int    `json:"fetched"`
	Disallowed int    `json:"disallowed"`
	Failed     int    `json:"failed"`
	Skipped    int    `json:"skipped"`
	Recrawls   int    `json:"recrawls_scheduled"`
	// The recheck schedule (see frontier/freshness): rechecks due within
	// the next hour (counted up to 100,000), and over the pages on it,
	// the mean interval and the expected share of pages whose stored
	// copy is current, from their estimated change rates. That share is
	// the long-run average over the recheck cycle, not the share at this
	// moment: a page not rechecked yet is taken to change once per
	// interval, so a fixed schedule reads about 65% at once ((1 − e^−x)/x
	// for x near 1; the rate histogram's bucket makes x 0.93).
	// Zero when no page is on the schedule.
	RechecksNextHour   int     `json:"rechecks_next_hour"`
	MeanIntervalS      float64 `json:"recheck_mean_interval_s,omitempty"`
	EstimatedFreshness float64 `json:"estimated_freshness,omitempty"`
	Hosts              int     `json:"hosts"`
	PerHost            []Host  `json:"per_host"`

	// Live only: what the running crawl knows besides the state file.
	Started  time.Time     `json:"started,omitzero"`
	UptimeS  float64       `json:"uptime_s,omitempty"`
	At       time.Time     `json:"at,omitzero"` // when this status was taken
	Activity *ActivityView `json:"activity,omitempty"`
	WARC     *WARC         `json:"warc,omitempty"`
	Cluster  *Cluster      `json:"cluster,omitempty"` // a cluster node's view of the cluster
}

// WARC is the crawl's WARC files.
type WARC struct {
	Dir   string     `json:"dir"`
	Files []WARCFile `json:"files"` // newest last
	Bytes int64      `json:"bytes"` // all of them
}

// WARCFile is one WARC file.
type WARCFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// Host is one host's part of a Status.
type Host struct {
	Host       string  `json:"host"`
	Queued     int     `json:"queued"`
	Robots     string  `json:"robots"` // outcome per origin
	RobotsAgeS float64 `json:"robots_age_s,omitempty"`
	IntervalS  float64 `json:"interval_s"`
	// DelayReason (live only) says why the host waits what it waits:
	// default_delay, robots.txt Crawl-delay or Request-rate, max_delay,
	// latency, error backoff, Retry-After or backoff (frontier.HostView).
	DelayReason string    `json:"delay_reason,omitempty"`
	NextRequest time.Time `json:"next_request,omitzero"` // live only: when its slot opens
	InFlight    bool      `json:"in_flight,omitempty"`
	LastRequest time.Time `json:"last_request,omitzero"`
	HoldUntil   time.Time `json:"hold_until,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	IP          string    `json:"ip,omitempty"` // IP group: the address its connections go to
	// Its pages on the recheck schedule, their mean interval and
	// expected freshness (see Status).
	RecheckPages       int       `json:"recheck_pages,omitempty"`
	MeanIntervalS      float64   `json:"recheck_mean_interval_s,omitempty"`
	EstimatedFreshness float64   `json:"estimated_freshness,omitempty"`
	Sitemaps           *Sitemaps `json:"sitemaps,omitempty"`

	// Its URL records by outcome (the export's, committed).
	storage.StateCounts
	// Live only: what it is doing (see Describe), until when and why,
	// and what set its delay. Read from a state file, a host the operator
	// paused has State StatePaused.
	State     string    `json:"state,omitempty"`
	Until     time.Time `json:"until,omitzero"`
	Why       string    `json:"why,omitempty"`
	DelayFrom string    `json:"delay_from,omitempty"`
	// LastStatus is its last answer's HTTP status, live or from its
	// record in the state file.
	LastStatus int `json:"last_status,omitempty"`
}

// Sitemaps counts one host's sitemap files and what they listed.
type Sitemaps struct {
	Read     int            `json:"read"`
	Pending  int            `json:"pending"`
	Refused  int            `json:"refused"` // failed, disallowed or over the cap
	Listed   int            `json:"listed"`
	Accepted int            `json:"accepted"`
	Diverted int            `json:"diverted,omitempty"` // handed to the cluster node owning their host
	Dropped  map[string]int `json:"dropped"`
}

// Read reads a Status from a state file. Each host's IntervalS is the
// delay in force by its record: its recorded floor raised by what the
// adaptive delay learnt of its server, by delays, the crawl's adaptive
// delay policy (the zero value: the floor alone). A restart spaces the
// host by at least that; more if the configured floor (default_delay, a
// hosts: min_delay) was raised since the record was written.
func Read(db *storage.DB, now time.Time, delays frontier.Adaptive) (*Status, error) {
	st := &Status{State: db.Path(), PerHost: []Host{}}
	err := db.View(func(tx *storage.Tx) error {
		if !tx.Initialised() {
			return nil
		}
		c := tx.Counts()
		st.Fetched, st.Disallowed, st.Failed, st.Skipped = c[storage.Fetched], c[storage.Disallowed], c[storage.Failed], c[storage.Skipped]
		st.Recrawls = tx.CountDue()
		st.RechecksNextHour = tx.CountDueBefore(now.Add(time.Hour), 100000)
		var pages int
		hosts := map[string]*Host{}
		get := func(h string) *Host {
			if hosts[h] == nil {
				hosts[h] = &Host{Host: h, Robots: "unknown"}
			}
			return hosts[h]
		}
		tx.ForEachHost(func(h string, r storage.HostRecord) error {
			s := get(h)
			s.IntervalS, s.LastRequest, s.HoldUntil, s.LastError, s.IP = delays.InForce(0, r).Seconds(), r.LastRequest, r.HoldUntil, r.LastError, r.IP
			s.LastStatus = r.LastStatus
			if r.Paused {
				// Known without the crawl, unlike the rest of State
				// (a running crawl describes every host anew).
				s.State, s.Why = StatePaused, WhyOperator
			}
			for _, n := range r.Rates {
				s.RecheckPages += int(n)
			}
			s.MeanIntervalS, s.EstimatedFreshness = r.MeanIntervalS, r.Freshness
			pages += s.RecheckPages
			st.MeanIntervalS += float64(s.RecheckPages) * r.MeanIntervalS
			st.EstimatedFreshness += float64(s.RecheckPages) * r.Freshness
			return nil
		})
		tx.ForEachHostStates(func(h string, c storage.StateCounts) error {
			get(h).StateCounts = c
			return nil
		})
		tx.QueuedHosts(func(h string, n int) error {
			get(h).Queued = n
			st.Queued += n
			return nil
		})
		tx.ForEachRobots(func(origin string, r *storage.RobotsRecord) error {
			addRobots(get(origin[strings.Index(origin, "://")+3:]), r, now)
			return nil
		})
		tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
			addSitemap(get(r.Host), r)
			return nil
		})
		for _, h := range hosts {
			st.PerHost = append(st.PerHost, *h)
		}
		if pages > 0 {
			st.MeanIntervalS /= float64(pages)
			st.EstimatedFreshness /= float64(pages)
		}
		return nil
	})
	sort.Slice(st.PerHost, func(i, j int) bool { return st.PerHost[i].Host < st.PerHost[j].Host })
	st.Hosts = len(st.PerHost)
	return st, err
}

// addRobots adds one origin's robots.txt outcome to its host's line (a
// host may have several origins: http and https).
func addRobots(s *Host, r *storage.RobotsRecord, now time.Time) {
	if s.Robots == "unknown" {
		s.Robots = ""
	} else {
		s.Robots += ", "
	}
	s.Robots += r.Outcome
	if r.Status != 0 {
		s.Robots += " (" + strconv.Itoa(r.Status) + ")"
	}
	s.RobotsAgeS = now.Sub(r.FetchedAt).Round(time.Second).Seconds()
}

// addSitemap adds one sitemap's record to its host's sitemap counts.
func addSitemap(s *Host, r *storage.SitemapRecord) {
	if s.Sitemaps == nil {
		s.Sitemaps = &Sitemaps{Dropped: map[string]int{}}
	}
	sm := s.Sitemaps
	switch r.State {
	case frontier.SitemapRead:
		sm.Read++
	case frontier.SitemapPending:
		sm.Pending++
	default:
		sm.Refused++
	}
	sm.Listed += r.Listed
	sm.Accepted += r.Accepted
	sm.Diverted += r.Diverted
	for k, n := range r.Dropped {
		sm.Dropped[k] += n
	}
}
