// Command collybench crawls one crawltest web with politecrawl and with
// colly v2, side by side in one process, and prints pages/s for each.
//
// It is a separate module so that the product never depends on colly; its
// go.mod replaces the main module with this checkout. Run it from the
// repository root with `make compare` (COMPARE_FLAGS passes flags), or here
// with `go run .`.
//
// The web is the one BenchmarkCrawl builds (crawler/bench_test.go): hosts
// with a binary tree of pages each, every page linking the next host's root,
// robots.txt "Disallow: /private/", no delays, seeded with the first host's
// root. The defaults are the measurement (50 hosts x 400 pages,
// 1 ms server latency); -pages 200 -latency 0 is BenchmarkCrawl's own web.
// Every crawler gets a fresh copy of the web, so each one's server logs
// (requests, most requests in flight at once on one host) are its own.
//
// The crawlers, each with 32 workers (-workers):
//
//   - politecrawl: crawler.New with BenchmarkCrawl's configuration
//     (DefaultDelay 0, bodies stored, the state file synced on every
//     commit), so at most one request in flight per host.
//   - colly: Async, with one LimitRule{DomainGlob: "*", Parallelism: 32},
//     robots.txt obeyed (colly ignores it by default). That rule bounds
//     requests across all hosts together, not per host: colly puts several
//     requests on one host at once, which politecrawl never does. Nothing is
//     stored.
//   - colly-perhost: the closest colly comes to politeness, one LimitRule
//     per host:port (colly matches rules against URL.Host, port included)
//     with Parallelism 1. There is then no overall bound: up to one request
//     per host, 50 at once on 50 hosts. Even so a host can see two at once:
//     colly fetches robots.txt outside its limit rules, and several
//     goroutines that meet a new host each fetch it (no single flight), so
//     there are more robots.txt requests than hosts.
//   - ceiling: not a crawler. 32 goroutines fetch the pages, known in
//     advance, with a plain net/http client, one request at a time per
//     host, parsing and storing nothing: the most pages/s 32 concurrent
//     requests get from these servers on this machine, which every crawler
//     here is under.
//
// Each line also gives the process's CPU time per page (getrusage; the
// servers run in the same process and cost the same for every crawler).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

type options struct {
	hosts, pages, workers, rounds int
	latency                       time.Duration
	crawlers                      []string
}

func main() {
	var o options
	var list string
	flag.IntVar(&o.hosts, "hosts", 50, "hosts in the web")
	flag.IntVar(&o.pages, "pages", 400, "pages per host")
	flag.DurationVar(&o.latency, "latency", time.Millisecond, "server think time per page")
	flag.IntVar(&o.workers, "workers", 32, "concurrent fetches (politecrawl workers, colly Parallelism)")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds; each crawls one fresh web per crawler")
	flag.StringVar(&list, "crawlers", "politecrawl,colly,colly-perhost,ceiling", "crawlers to run, in order")
	flag.Parse()
	o.crawlers = strings.Split(list, ",")
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "collybench:", err)
		os.Exit(1)
	}
}

// result is one crawl of one web.
type result struct {
	pages     int           // distinct pages fetched with status 200, robots.txt excluded
	requests  int           // every request the servers saw
	robots    int           // requests for /robots.txt (one per host when fetched once)
	elapsed   time.Duration // from the seed to the end of the crawl
	maxFlight int           // most requests in flight at once on one host
	cpu       time.Duration // CPU time of the whole process (the servers' too)
}

// cpuPerPage is the process's CPU time per page: the test servers run in
// the same process and do the same work for every crawler, so differences
// are the crawlers'.
func (r result) cpuPerPage() time.Duration {
	if r.pages == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.pages)
}

func (r result) rate() float64 { return float64(r.pages) / r.elapsed.Seconds() }

var crawlers = map[string]func(options, *web) (time.Duration, error){
	"politecrawl":   crawlPolitecrawl,
	"colly":         func(o options, w *web) (time.Duration, error) { return crawlColly(o, w, false) },
	"ceiling":       crawlCeiling,
	"colly-perhost": func(o options, w *web) (time.Duration, error) { return crawlColly(o, w, true) },
}

func run(out io.Writer, o options) error {
	for _, name := range o.crawlers {
		if crawlers[name] == nil {
			return fmt.Errorf("unknown crawler %q", name)
		}
	}
	fmt.Fprintf(out, "web: %d hosts x %d pages, %v server latency, no delays; %d workers; %d rounds\n",
		o.hosts, o.pages, o.latency, o.workers, o.rounds)
	rates := map[string][]float64{}
	cpus := map[string][]float64{} // µs of CPU per page
	for round := 1; round <= o.rounds; round++ {
		// Each round starts with the next crawler, so none always runs
		// first (or last) while the machine's load drifts.
		k := (round - 1) % len(o.crawlers)
		for _, name := range append(o.crawlers[k:len(o.crawlers):len(o.crawlers)], o.crawlers[:k]...) {
			r, err := crawlOnce(o, name)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round, name, err)
			}
			rates[name] = append(rates[name], r.rate())
			cpus[name] = append(cpus[name], float64(r.cpuPerPage())/float64(time.Microsecond))
			fmt.Fprintf(out, "round %d  %-14s %6.0f pages/s  (%d pages in %v; CPU %v per page, %.0f%% of one core; %d requests, %d for robots.txt; at most %d in flight on one host)\n",
				round, name, r.rate(), r.pages, r.elapsed.Round(time.Millisecond), r.cpuPerPage().Round(time.Microsecond),
				100*r.cpu.Seconds()/r.elapsed.Seconds(), r.requests, r.robots, r.maxFlight)
		}
	}
	summarise(out, o.crawlers, rates)
	summariseCPU(out, o.crawlers, cpus)
	return nil
}

// summariseCPU prints each crawler's median CPU time per page and
// politecrawl's ratio to colly's (issue 19's figure: at most 0.6x), per
// round and of medians, as summarise does for pages/s. The in-process
// servers' CPU is in every crawler's figure alike.
func summariseCPU(out io.Writer, names []string, cpus map[string][]float64) {
	printMedians(out, "median CPU per page  ", "%s %.0fµs", names, cpus)
	if base, colly := cpus["politecrawl"], cpus["colly"]; len(base) > 0 && len(base) == len(colly) {
		ratios := perRound(base, colly)
		fmt.Fprintf(out, "CPU per page politecrawl / colly: %.2fx per round (median; rounds %.2f), %.2fx of medians\n",
			median(ratios), ratios, median(base)/median(colly))
	}
}

// printMedians prints a line of each crawler's median value.
func printMedians(out io.Writer, prefix, format string, names []string, values map[string][]float64) {
	fmt.Fprint(out, prefix)
	for i, name := range names {
		if i > 0 {
			fmt.Fprint(out, ", ")
		}
		fmt.Fprintf(out, format, name, median(values[name]))
	}
	fmt.Fprintln(out)
}

// perRound is a[i]/b[i] for each round.
func perRound(a, b []float64) []float64 {
	var ratios []float64
	for i := range min(len(a), len(b)) {
		ratios = append(ratios, a[i]/b[i])
	}
	return ratios
}

func crawlOnce(o options, name string) (result, error) {
	w := newWeb(o.hosts, o.pages, o.latency)
	defer w.Close()
	runtime.GC() // the previous crawl's garbage is not this one's work
	cpu0 := cpuTime()
	elapsed, err := crawlers[name](o, w)
	if err != nil {
		return result{}, err
	}
	r := w.result(elapsed)
	r.cpu = cpuTime() - cpu0
	if want := o.hosts * o.pages; r.pages != want {
		return r, fmt.Errorf("fetched %d pages, want %d", r.pages, want)
	}
	return r, nil
}

// summarise prints each crawler's median pages/s, and politecrawl's ratio
// to each other crawler: the median of the per-round ratios (crawls of one
// round ran close in time, under similar load) and the ratio of medians.
func summarise(out io.Writer, names []string, rates map[string][]float64) {
	printMedians(out, "median  ", "%s %.0f pages/s", names, rates)
	base := rates["politecrawl"]
	for _, name := range names {
		if name == "politecrawl" || len(base) == 0 {
			continue
		}
		ratios := perRound(base, rates[name])
		fmt.Fprintf(out, "politecrawl / %s: %.2fx per round (median; rounds %.2f), %.2fx of medians\n",
			name, median(ratios), ratios, median(base)/median(rates[name]))
	}
	// The ceiling fetches without parsing or storing anything, with as
	// many requests at once as the crawlers: no crawler here can beat it,
	// so ceiling/colly is the most any of them could reach against colly
	// in this run, whatever its engine.
	if ceil, colly := rates["ceiling"], rates["colly"]; len(ceil) > 0 && len(ceil) == len(colly) {
		ratios := perRound(ceil, colly)
		fmt.Fprintf(out, "ceiling / colly: %.2fx per round (median; rounds %.2f): the most any crawler could reach against colly here\n",
			median(ratios), ratios)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
