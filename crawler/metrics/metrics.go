// Package metrics holds a crawl's Prometheus instruments: aggregates
// only (per-host figures would give the labels unbounded cardinality; they
// are in status).
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the crawl's Prometheus instruments. A nil *Metrics records
// nothing. All fields are safe for concurrent use.
type Metrics struct {
	fetches        *prometheus.CounterVec
	bytes          prometheus.Counter
	latency        prometheus.Histogram
	queueDepth     prometheus.Gauge
	inFlight       prometheus.Gauge
	hosts          *prometheus.GaugeVec
	urls           *prometheus.GaugeVec
	politenessWait prometheus.Counter
	robotsFetches  *prometheus.CounterVec
	tdmRepFetches  *prometheus.CounterVec
	sitemapURLs    *prometheus.CounterVec
	commitTime     prometheus.Histogram
	commitResults  prometheus.Histogram
}

// New creates the instruments and registers them with reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "politecrawl_fetches_total",
			Help: "Page and sitemap fetches by HTTP status class (1xx-5xx) or error."}, []string{"class"}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{Name: "politecrawl_fetched_bytes_total",
			Help: "Body bytes received for pages."}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "politecrawl_fetch_duration_seconds",
			Help: "Time from sending a request to having its body.", Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 10)}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{Name: "politecrawl_queue_depth",
			Help: "URLs waiting in host queues."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "politecrawl_in_flight",
			Help: "Requests under way."}),
		hosts: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "politecrawl_hosts",
			Help: "Origins by robots.txt outcome (parsed, unavailable, unreachable, gave_up, fetching)."}, []string{"robots"}),
		urls: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "politecrawl_urls",
			Help: "URLs in the state file by state (queued, fetched, disallowed, failed, skipped), as committed: the console's and the export's totals."}, []string{"state"}),
		politenessWait: prometheus.NewCounter(prometheus.CounterOpts{Name: "politecrawl_politeness_wait_seconds_total",
			Help: "Time hosts with work waited for their politeness slot (delay, Retry-After, backoff)."}),
		robotsFetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "politecrawl_robots_fetches_total",
			Help: "robots.txt fetches by outcome."}, []string{"outcome"}),
		tdmRepFetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "politecrawl_tdmrep_fetches_total",
			Help: "/.well-known/tdmrep.json fetches (made only with a declared purpose) by outcome (found, absent, unusable, error)."}, []string{"outcome"}),
		sitemapURLs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "politecrawl_sitemap_urls_total",
			Help: "URLs listed in sitemaps, by fate (accepted or the drop reason)."}, []string{"fate"}),
		commitTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "politecrawl_commit_duration_seconds",
			Help:    "Time to write and sync one batch of results to the state file (WARC sync included); its count is the number of commits.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 10)}),
		commitResults: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "politecrawl_commit_results",
			Help:    "Fetch results recorded per commit (group commit: more when results come fast).",
			Buckets: prometheus.ExponentialBuckets(1, 4, 6)}),
	}
	reg.MustRegister(m.fetches, m.bytes, m.latency, m.queueDepth, m.inFlight, m.hosts, m.urls, m.politenessWait, m.robotsFetches, m.tdmRepFetches, m.sitemapURLs,
		m.commitTime, m.commitResults)
	return m
}

// Fetch counts a page or sitemap fetch: its status (0: an error), body
// bytes and duration.
func (m *Metrics) Fetch(status int, bytes int, d time.Duration) {
	if m == nil {
		return
	}
	class := "error"
	if status >= 100 && status < 600 {
		class = strconv.Itoa(status/100) + "xx"
	}
	m.fetches.WithLabelValues(class).Inc()
	m.bytes.Add(float64(bytes))
	if d > 0 {
		m.latency.Observe(d.Seconds())
	}
}

// Robots counts a robots.txt fetch by outcome.
func (m *Metrics) Robots(outcome string) {
	if m != nil {
		m.robotsFetches.WithLabelValues(outcome).Inc()
	}
}

// TDMRep counts a tdmrep.json fetch by outcome (see
// contentuse.Answer.Outcome).
func (m *Metrics) TDMRep(outcome string) {
	if m != nil {
		m.tdmRepFetches.WithLabelValues(outcome).Inc()
	}
}

// SitemapFates counts what became of a sitemap read's URLs: accepted
// (queued here), diverted (handed to the cluster node owning their host)
// or dropped, by reason.
func (m *Metrics) SitemapFates(accepted, diverted int, dropped map[string]int) {
	if m == nil {
		return
	}
	m.sitemapURLs.WithLabelValues("accepted").Add(float64(accepted))
	if diverted > 0 {
		m.sitemapURLs.WithLabelValues("diverted").Add(float64(diverted))
	}
	for k, n := range dropped {
		m.sitemapURLs.WithLabelValues(k).Add(float64(n))
	}
}

// Committed observes one commit of results.
func (m *Metrics) Committed(took time.Duration, results int) {
	if m != nil {
		m.commitTime.Observe(took.Seconds())
		m.commitResults.Observe(float64(results))
	}
}

// Waited adds time hosts with work waited for their politeness slot.
func (m *Metrics) Waited(d time.Duration) {
	if m != nil && d > 0 {
		m.politenessWait.Add(d.Seconds())
	}
}

// Gauges sets the gauges: URLs queued, requests under way, and origins by
// robots.txt outcome.
func (m *Metrics) Gauges(queued, inFlight int, robots map[string]int) {
	if m == nil {
		return
	}
	m.queueDepth.Set(float64(queued))
	m.inFlight.Set(float64(inFlight))
	for k, n := range robots {
		m.hosts.WithLabelValues(k).Set(float64(n))
	}
}

// URLs sets the URLs-by-state gauge from the state file's counters.
func (m *Metrics) URLs(byState map[string]int) {
	if m == nil {
		return
	}
	for k, n := range byState {
		m.urls.WithLabelValues(k).Set(float64(n))
	}
}
