package crawler

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/metrics"
	"github.com/politecrawl/politecrawl/storage"
	"github.com/prometheus/client_golang/prometheus"
)

// deadRobots is a web of one host whose robots.txt always answers 503.
func deadRobots(t *testing.T) *crawltest.Host {
	t.Helper()
	web := crawltest.NewWeb()
	t.Cleanup(web.Close)
	return web.AddHost("down", map[string]*crawltest.Page{
		"/robots.txt": {Status: 503},
		"/":           {Body: "down"},
	})
}

// firstRetryLine is what recordRobots logs once the first attempt found
// robots.txt unreachable.
const firstRetryLine = "host disallowed until retry"

// stopAfterFirstAttempt runs a crawl of cfg on the state file at path
// until its first robots.txt attempt has been recorded unreachable, then
// stops it (SIGTERM: an orderly stop), before the retry.
func stopAfterFirstAttempt(t *testing.T, path string, cfg Config, host *crawltest.Host) {
	t.Helper()
	var logs syncBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	db := openDB(t, path)
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), firstRetryLine); {
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("no robots.txt attempt recorded in 10 s:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := host.Count("/robots.txt"); n != 1 {
		t.Fatalf("first run asked robots.txt %d times, want 1 (stopped before its retry):\n%s", n, logs.String())
	}
}

// TestRobotsRetriesSpanRestarts: a restart counts robots.txt attempts on
// from the state file. Stopped after the first attempt, the next run's
// first retry is the second attempt, waits the second attempt's delay,
// and the host is given up after RobotsRetries retries in all (the
// restarted run began again at attempt 1, 100 ms: a daemon restarted
// more often than the whole retry cycle never gave up).
func TestRobotsRetriesSpanRestarts(t *testing.T) {
	down := deadRobots(t)
	path := filepath.Join(t.TempDir(), "state.db")
	cfg := testConfig(down.URL("/"))
	// The first run's retry is 1.5 s away, so that a busy machine
	// stops it well before (its host waits for that retry in the next
	// run too); the next run's own base is 300 ms.
	cfg.RobotsRetries, cfg.RobotsRetryBase = 2, 1500*time.Millisecond
	stopAfterFirstAttempt(t, path, cfg, down)
	cfg.RobotsRetryBase = 300 * time.Millisecond

	var logs syncBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	recs := runToEnd(t, path, cfg)
	log := logs.String()
	first := ""
	if i := strings.Index(log, firstRetryLine); i >= 0 {
		first, _, _ = strings.Cut(log[i:], "\n")
	}
	if !strings.Contains(first, "retry_in=600ms attempt=2") {
		t.Errorf("the restarted run's first retry: %q, want retry_in=600ms attempt=2\n%s", first, log)
	}
	if !strings.Contains(log, "giving up on the host's URLs") || !strings.Contains(log, "attempts=3") {
		t.Errorf("no give-up after 3 attempts in the restarted run:\n%s", log)
	}
	if n := down.Count("/robots.txt"); n != 1+cfg.RobotsRetries {
		t.Errorf("robots.txt asked %d times in both runs, want %d (1 + robots_retries)", n, 1+cfg.RobotsRetries)
	}
	if r := recs[down.URL("/")]; r == nil || r.State != storage.Failed || !strings.HasPrefix(r.Error, robotsGaveUpPrefix+"3 attempts") {
		t.Errorf("%s: %+v, want failed after 3 attempts", down.URL("/"), r)
	}
	var robots []crawltest.Request
	for _, r := range down.Log() {
		if r.Path == "/robots.txt" {
			robots = append(robots, r)
		}
	}
	if len(robots) == 3 {
		if gap := robots[2].Arrived.Sub(robots[1].Arrived); gap < 600*time.Millisecond-crawltest.Slack {
			t.Errorf("third attempt %v after the second, want the second attempt's wait, 600ms", gap)
		}
	}
}

// TestRestoredUnreachableRobotsGauge: after a restart while a host waits
// for its robots.txt retry, politecrawl_hosts counts it unreachable from
// the first scrape, as status says (it read 0 until the retry: the
// restored origin had no outcome).
func TestRestoredUnreachableRobotsGauge(t *testing.T) {
	down := deadRobots(t)
	path := filepath.Join(t.TempDir(), "state.db")
	cfg := testConfig(down.URL("/"))
	cfg.RobotsRetryBase = time.Minute // the restarted run waits for it
	stopAfterFirstAttempt(t, path, cfg, down)

	reg := prometheus.NewRegistry()
	cfg.Metrics = metrics.New(reg)
	db := openDB(t, path)
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := runInBackground(t, c, 20*time.Second)
	defer stop()
	var hosts map[string]float64
	for hosts == nil && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond) // the gauges are set every second
		hosts = gaugeByLabel(t, reg, "politecrawl_hosts")
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.PerHost) != 1 || st.PerHost[0].Robots != "unreachable (503)" {
		t.Fatalf("status: %+v, want the host with robots.txt unreachable (503)", st.PerHost)
	}
	if hosts["unreachable"] != 1 || hosts["parsed"] != 0 || hosts["fetching"] != 0 {
		t.Errorf("politecrawl_hosts after the restart: %v, want unreachable 1 (status: %s, %s)", hosts, st.PerHost[0].Robots, st.PerHost[0].State)
	}
	if n := down.Count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt asked %d times, want once (the retry is a minute away)", n)
	}
}

// gaugeByLabel reads a one-label gauge family from reg; nil until it is
// set.
func gaugeByLabel(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		out := map[string]float64{}
		for _, m := range f.GetMetric() {
			out[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
		}
		return out
	}
	return nil
}

// TestWhyRestoredUnreachableRobots: after a restart, why says an origin's
// robots.txt was unreachable at its last try (it said "not fetched yet").
func TestWhyRestoredUnreachableRobots(t *testing.T) {
	down := deadRobots(t)
	path := filepath.Join(t.TempDir(), "state.db")
	cfg := testConfig(down.URL("/"))
	cfg.RobotsRetryBase = time.Minute
	stopAfterFirstAttempt(t, path, cfg, down)
	db := openDB(t, path)
	defer db.Close()
	c, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.ExplainOffline(down.URL("/page"))
	if err != nil {
		t.Fatal(err)
	}
	var says string
	for _, s := range w.Steps {
		if s.Step == "robots.txt" {
			says = s.Result
		}
	}
	if !strings.HasPrefix(says, "unreachable at the last try (") || !strings.Contains(says, "503") {
		t.Errorf("why's robots.txt step after a restart: %q, want unreachable at the last try (HTTP 503)", says)
	}
}
