package crawler

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/storage"
)

// BenchmarkBound2000Hosts is issue 11's "at the bound, never early":
// 2,000 hosts on loopback, each with robots.txt and 11 pages (12 requests,
// 24,000 in all) under the default delay of 1 s, every root a seed. The
// delays allow no crawl shorter than 11 s (11 gaps of 1 s on each host,
// all hosts in parallel): bound/wall is how close the engine comes to that
// (goal: at least 0.95); bound/host_span is the same for each host's own
// span, from its first request to its last, averaged over the hosts (the
// difference is the ramp: the first request to 2,000 hosts cannot all leave
// at once). early counts gaps between two requests to one host
// shorter than the delay as the server saw them (goal: 0); min_gap_ms is
// the shortest. POLITECRAWL_BOUND_HOSTS changes the number of hosts.
// Per-IP limits are off: every test host is on 127.0.0.1.
//
// The hosts are served by another process (this test binary, started
// again with boundServeEnv set), as on the real web: servers in the
// crawler's own process shared its Go scheduler, so under the crawl's load
// their handlers ran up to about 30 ms after the request arrived, by
// different amounts for consecutive requests, and gaps the client had
// spaced by more than the delay looked early (7 to 9 of 22,000, the
// shortest 990 ms, with the client's margin of 20 ms). The other process
// still shares the two cores, and its timestamps still lag under bursts:
// in 4 runs 0, 44, 0 and 3 early gaps, the shortest 987 ms; the 44 were
// all robots.txt then / on the first 240 hosts, as 2,000 connections
// opened at once at the start.
func BenchmarkBound2000Hosts(b *testing.B) {
	if testing.Short() {
		b.Skip("a 2,000-host crawl of at least 11 s")
	}
	hosts := 2000
	if s := os.Getenv("POLITECRAWL_BOUND_HOSTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("POLITECRAWL_BOUND_HOSTS=%q", s)
		}
		hosts = n
	}
	benchBound(b, boundSpec{hosts: hosts, pages: 11, delay: time.Second, workers: 64})
}

// BenchmarkBound5000Hosts is the Internet-like width of issue 19: 5,000
// hosts at the default delay of 1 s whose servers take 100 ms to answer
// each request (robots.txt and 7 pages each, 40,000 requests; with 1,024
// workers some 500 are open at once). The same figures as
// BenchmarkBound2000Hosts, the CPU the crawl's process used per request
// (cpu_us/req: the web's own process is not counted; web_cpu_us/req is
// that process's, on the same two cores) and the ceiling the workers set
// (see boundSpec.ceiling: 0.933 with 1,024). POLITECRAWL_BOUND_WORKERS
// changes the number of workers.
func BenchmarkBound5000Hosts(b *testing.B) {
	if testing.Short() {
		b.Skip("a 5,000-host crawl of at least 7 s")
	}
	workers := 1024
	if s := os.Getenv("POLITECRAWL_BOUND_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("POLITECRAWL_BOUND_WORKERS=%q", s)
		}
		workers = n
	}
	benchBound(b, boundSpec{hosts: 5000, pages: 7, delay: time.Second, think: 100 * time.Millisecond, workers: workers})
}

// ceiling is the most bound/wall any crawler with spec.workers concurrent
// requests can reach on the bound web: every host's first request
// (robots.txt) takes a worker for the server's think time, so the last of
// them cannot start before (hosts-1)/workers rounds of it have ended, and
// that host's last request ends pages delays and one think time later.
// With 5,000 hosts, 1,024 workers and 100 ms servers: 7 s / 7.5 s = 0.933;
// 0.95 needs at least 1,667 workers (two rounds before the last).
func (spec boundSpec) ceiling() float64 {
	bound := time.Duration(spec.pages) * spec.delay
	rounds := time.Duration((spec.hosts - 1) / spec.workers)
	return bound.Seconds() / (bound + rounds*spec.think + spec.think).Seconds()
}

// boundSpec is a bound web and the crawl of it.
type boundSpec struct {
	hosts, pages int
	delay, think time.Duration // between requests to a host; to answer one
	workers      int
}

func benchBound(b *testing.B, spec boundSpec) {
	hosts, pages, delay := spec.hosts, spec.pages, spec.delay
	web, err := startBoundWeb(hosts, pages, spec.think)
	if err != nil {
		b.Fatal(err)
	}
	defer web.stop()
	scope, seeds := web.scope, web.seeds
	bound := time.Duration(pages) * delay // robots.txt + 11 pages: 11 gaps
	var wall, cpu time.Duration
	var firstStart, lastEnd time.Time
	var early int
	minGap := time.Hour
	for b.Loop() {
		db, err := storage.Open(filepath.Join(b.TempDir(), "bound.db"), storage.Options{NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		cfg := testConfig(seeds...)
		cfg.Scope, cfg.DefaultDelay, cfg.Workers = scope, delay, spec.workers
		cfg.Fetch.IdleConns = max(hosts+spec.workers, fetch.DefaultIdleConns)
		cfg.IPMaxInFlight, cfg.IPDelay = 0, 0
		// The bound is the configured delay's: 10 × a 100 ms server's time
		// to first byte is that delay already, and any jitter above it
		// would space the host further (as it should, but not here).
		cfg.LatencyFactor = 0
		c, err := New(db, cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*bound)
		start := time.Now()
		cpu0 := processCPU()
		err = c.Run(ctx)
		wall += time.Since(start)
		cpu += processCPU() - cpu0
		if firstStart.IsZero() {
			firstStart = start
		}
		lastEnd = time.Now()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		var n int
		db.View(func(tx *storage.Tx) error { n = tx.Counts()[storage.Fetched]; return nil })
		db.Close()
		if n != hosts*pages {
			b.Fatalf("fetched %d pages, want %d", n, hosts*pages)
		}
	}
	logs, err := web.logs()
	if err != nil {
		b.Fatal(err)
	}
	var requests, gaps int
	var spanSum float64
	var gapSum time.Duration
	var lates []time.Duration // each gap's excess over the delay
	var firstMin, firstMax, lastMax time.Time
	for name, log := range logs {
		requests += len(log)
		if len(log) > 0 && log[len(log)-1].Arrived.After(lastMax) {
			lastMax = log[len(log)-1].Arrived
		}
		if len(log) > 0 {
			if f := log[0].Arrived; firstMin.IsZero() || f.Before(firstMin) {
				firstMin = f
			}
			if f := log[0].Arrived; f.After(firstMax) {
				firstMax = f
			}
		}
		slices.SortFunc(log, func(a, b crawltest.Request) int { return a.Arrived.Compare(b.Arrived) })
		if len(log) > pages {
			spanSum += bound.Seconds() / log[pages].Arrived.Sub(log[0].Arrived).Seconds()
		}
		for i := 1; i < len(log); i++ {
			gap := log[i].Arrived.Sub(log[i-1].Arrived)
			if log[i].Start.Before(log[i-1].End) {
				b.Errorf("%s: two requests in flight at once (%s and %s)", name, log[i-1].Path, log[i].Path)
			}
			if i%(pages+1) != 0 {
				gaps++
				gapSum += gap
				lates = append(lates, gap-delay)
			}
			if gap < delay && i%(pages+1) != 0 { // a new iteration starts afresh
				early++
			}
			minGap = min(minGap, gap)
		}
	}
	per := wall / time.Duration(b.N)
	b.ReportMetric(spec.ceiling(), "ceiling")
	b.ReportMetric(float64(requests)/float64(b.N), "requests")
	b.ReportMetric(per.Seconds(), "wall_s")
	b.ReportMetric(bound.Seconds()/per.Seconds(), "bound/wall")
	b.ReportMetric(spanSum/float64(len(logs)), "bound/host_span")
	b.ReportMetric(float64(early), "early")
	// Where wall goes beyond the bound: lead (from Run to the first
	// request), the ramp (from the first host's first request to the last
	// host's, in the first iteration), how much later than the delay the
	// average gap came (the client's margin of 2%, at most 20 ms,
	// included) and tail (from the last request to Run's return).
	b.ReportMetric(firstMin.Sub(firstStart).Seconds(), "lead_s")
	b.ReportMetric(firstMax.Sub(firstMin).Seconds(), "ramp_s")
	b.ReportMetric(lastEnd.Sub(lastMax).Seconds(), "tail_s")
	if gaps > 0 {
		b.ReportMetric(float64((gapSum/time.Duration(gaps)-delay).Microseconds())/1000, "late_ms")
		// The spread: a mean late by a few very late gaps (a stalled
		// coordinator) reads differently from every gap a little late
		// (a busy machine).
		slices.Sort(lates)
		b.ReportMetric(float64(lates[len(lates)/2].Microseconds())/1000, "late_p50_ms")
		b.ReportMetric(float64(lates[len(lates)*99/100].Microseconds())/1000, "late_p99_ms")
	}
	b.ReportMetric(float64(minGap.Milliseconds()), "min_gap_ms")
	if requests > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(requests), "cpu_us/req")
		// The web's process shares the two cores: what it used while
		// serving, per request, is CPU the crawl could not have.
		b.ReportMetric(float64(web.cpu.Microseconds())/float64(requests), "web_cpu_us/req")
	}
}

// boundServeEnv, when set to "HOSTS PAGES THINK", makes this test binary serve a
// bound web instead of running tests (see serveBoundWeb).
const boundServeEnv = "POLITECRAWL_BOUND_SERVE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(boundServeEnv); spec != "" {
		if err := serveBoundWeb(spec, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bound web:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveBoundWeb serves hosts trees of pages pages each, on loopback: it
// writes one line per host (its base URL), then "ready", serves until in
// is closed, and then writes the CPU it used while serving ("cpu NS") and
// every host's request log as JSON.
func serveBoundWeb(spec string, in io.Reader, out io.Writer) error {
	var hosts, pages int
	var think time.Duration
	if _, err := fmt.Sscanf(spec, "%d %d %d", &hosts, &pages, &think); err != nil {
		return fmt.Errorf("%s=%q: %w", boundServeEnv, spec, err)
	}
	w := crawltest.NewWeb()
	defer w.Close()
	bw := bufio.NewWriter(out)
	for i := 0; i < hosts; i++ {
		h := w.AddTree(fmt.Sprintf("h%d", i), pages, "User-agent: *\nDisallow: /private/\n", think)
		fmt.Fprintln(bw, h.URL(""))
	}
	fmt.Fprintln(bw, "ready")
	if err := bw.Flush(); err != nil {
		return err
	}
	cpu0 := processCPU()
	io.Copy(io.Discard, in) // until the crawl is over
	fmt.Fprintf(bw, "cpu %d\n", processCPU()-cpu0)
	if err := bw.Flush(); err != nil {
		return err
	}
	logs := map[string][]crawltest.Request{}
	for _, h := range w.Hosts() {
		logs[h.Name] = h.Log()
	}
	return json.NewEncoder(out).Encode(logs)
}

// boundWeb is a bound web served by another process.
type boundWeb struct {
	cmd          *exec.Cmd
	in           io.WriteCloser
	out          *bufio.Reader
	scope, seeds []string
	cpu          time.Duration // the web's CPU while serving, once logs returned
}

func startBoundWeb(hosts, pages int, think time.Duration) (*boundWeb, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %d", boundServeEnv, hosts, pages, think))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the web's process: %w", err)
	}
	w := &boundWeb{cmd: cmd, in: in, out: bufio.NewReader(stdout)}
	for {
		line, err := w.out.ReadString('\n')
		if err != nil {
			w.stop()
			return nil, fmt.Errorf("read the web's hosts: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "ready" {
			return w, nil
		}
		u, err := url.Parse(line)
		if err != nil {
			w.stop()
			return nil, fmt.Errorf("web host %q: %w", line, err)
		}
		w.scope = append(w.scope, u.Host)
		w.seeds = append(w.seeds, line+"/")
	}
}

// logs ends the web's process and returns each host's requests in the
// order they started.
func (w *boundWeb) logs() (map[string][]crawltest.Request, error) {
	w.in.Close()
	line, err := w.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("read the web's CPU: %w", err)
	}
	if _, err := fmt.Sscanf(line, "cpu %d", &w.cpu); err != nil {
		return nil, fmt.Errorf("read the web's CPU from %q: %w", line, err)
	}
	logs := map[string][]crawltest.Request{}
	if err := json.NewDecoder(w.out).Decode(&logs); err != nil {
		return nil, fmt.Errorf("read the web's logs: %w", err)
	}
	for _, log := range logs {
		slices.SortFunc(log, func(a, b crawltest.Request) int { return a.Arrived.Compare(b.Arrived) })
	}
	return logs, w.cmd.Wait()
}

func (w *boundWeb) stop() {
	w.in.Close()
	w.cmd.Process.Kill()
	w.cmd.Wait()
}
