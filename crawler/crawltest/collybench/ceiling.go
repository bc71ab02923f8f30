package main

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
)

// crawlCeiling is not a crawler: o.workers goroutines fetch every page of
// w (the paths are known in advance) with a plain net/http client, one
// request at a time per host, and neither parse nor store anything. It is
// the most pages/s o.workers concurrent requests can get from these
// servers on this machine, the ceiling every crawler here is under.
func crawlCeiling(o options, w *web) (time.Duration, error) {
	type host struct {
		server *crawltest.Host
		paths  []string
	}
	var list []*host
	for _, h := range w.Hosts() {
		list = append(list, &host{server: h, paths: append([]string{"/robots.txt"}, crawltest.TreePaths(o.pages)...)})
	}
	// Hosts take turns: a worker takes a host, fetches its next page and
	// puts it back, so no host ever has two requests at once.
	ready := make(chan *host, len(list))
	for _, h := range list {
		ready <- h
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	var (
		wg, left sync.WaitGroup
		errOnce  sync.Once
		failure  error
	)
	left.Add(len(list))
	start := time.Now()
	for range o.workers {
		wg.Go(func() {
			for h := range ready {
				p := h.paths[0]
				h.paths = h.paths[1:]
				resp, err := client.Get(h.server.URL(p))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil {
					errOnce.Do(func() { failure = fmt.Errorf("ceiling: %w", err) })
				}
				if len(h.paths) > 0 {
					ready <- h
				} else {
					left.Done()
				}
			}
		})
	}
	left.Wait()
	close(ready)
	wg.Wait()
	return time.Since(start), failure
}
