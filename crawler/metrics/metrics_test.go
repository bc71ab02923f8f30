package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// value reads a counter or gauge.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		t.Fatal(err)
	}
	if d.Counter != nil {
		return d.GetCounter().GetValue()
	}
	return d.GetGauge().GetValue()
}

// TestMetrics: fetches counted by status class (errors apart), bytes,
// robots.txt and tdmrep.json fetches by outcome, sitemap fates, the politeness wait and the gauges, as /metrics shows
// them; a nil *Metrics records nothing and does not fail.
func TestMetrics(t *testing.T) {
	m := New(prometheus.NewRegistry())
	m.Fetch(200, 100, time.Millisecond)
	m.Fetch(204, 50, 0)
	m.Fetch(503, 0, time.Millisecond)
	m.Fetch(0, 0, 0)
	m.SitemapFates(3, 4, map[string]int{"invalid URL": 2})
	m.Waited(1500 * time.Millisecond)
	m.Waited(-time.Second) // ignored
	m.Gauges(7, 2, map[string]int{"parsed": 4})
	m.Robots("parsed")
	m.Robots("parsed")
	m.TDMRep("found")
	m.TDMRep("error")
	m.TDMRep("error")
	m.Committed(10*time.Millisecond, 3)
	m.URLs(map[string]int{"fetched": 9, "failed": 1})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"2xx fetches", value(t, m.fetches.WithLabelValues("2xx")), 2},
		{"5xx fetches", value(t, m.fetches.WithLabelValues("5xx")), 1},
		{"failed fetches", value(t, m.fetches.WithLabelValues("error")), 1},
		{"bytes", value(t, m.bytes), 150},
		{"accepted sitemap URLs", value(t, m.sitemapURLs.WithLabelValues("accepted")), 3},
		{"invalid sitemap URLs", value(t, m.sitemapURLs.WithLabelValues("invalid URL")), 2},
		{"diverted sitemap URLs", value(t, m.sitemapURLs.WithLabelValues("diverted")), 4},
		{"politeness wait", value(t, m.politenessWait), 1.5},
		{"queue depth", value(t, m.queueDepth), 7},
		{"in flight", value(t, m.inFlight), 2},
		{"parsed origins", value(t, m.hosts.WithLabelValues("parsed")), 4},
		{"robots.txt fetches parsed", value(t, m.robotsFetches.WithLabelValues("parsed")), 2},
		{"tdmrep.json fetches found", value(t, m.tdmRepFetches.WithLabelValues("found")), 1},
		{"tdmrep.json fetches failed", value(t, m.tdmRepFetches.WithLabelValues("error")), 2},
		{"fetched URLs", value(t, m.urls.WithLabelValues("fetched")), 9},
		{"failed URLs", value(t, m.urls.WithLabelValues("failed")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	var none *Metrics
	none.Fetch(200, 1, time.Second)
	none.Gauges(1, 1, nil)
	none.Committed(time.Second, 1)
	none.Robots("parsed")
	none.TDMRep("found")
	none.SitemapFates(1, 1, map[string]int{"x": 1})
	none.Waited(time.Second)
	none.URLs(map[string]int{"fetched": 1})
}
