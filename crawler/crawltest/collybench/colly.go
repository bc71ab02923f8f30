package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
)

// crawlColly crawls w with colly v2 in Async mode, following every link
// and obeying robots.txt. Without perHost one LimitRule bounds all hosts
// together at o.workers requests; with it, one rule per host:port allows
// one request at a time on each host and nothing bounds the total.
func crawlColly(o options, w *web, perHost bool) (time.Duration, error) {
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("collybench"))
	c.IgnoreRobotsTxt = false
	rules := []*colly.LimitRule{{DomainGlob: "*", Parallelism: o.workers}}
	if perHost {
		rules = rules[:0]
		for _, a := range w.scope {
			rules = append(rules, &colly.LimitRule{DomainGlob: a, Parallelism: 1})
		}
	}
	if err := c.Limits(rules); err != nil {
		return 0, fmt.Errorf("colly limits: %w", err)
	}
	var errs atomic.Int64
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		e.Request.Visit(e.Attr("href")) // already visited or disallowed: an error we expect
	})
	c.OnError(func(*colly.Response, error) { errs.Add(1) })
	start := time.Now()
	if err := c.Visit(w.seed); err != nil {
		return 0, fmt.Errorf("colly visit: %w", err)
	}
	c.Wait()
	elapsed := time.Since(start)
	if n := errs.Load(); n > 0 {
		return 0, fmt.Errorf("colly: %d requests failed", n)
	}
	return elapsed, nil
}
