package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine is the one-line live display on a terminal. Log lines
// written through it clear the line first, so both stay readable. Once
// stopped it draws nothing more: the lines written after (the final
// counts) are the last on the screen.
type progressLine struct {
	mu      sync.Mutex
	w       io.Writer
	line    string
	fetched int
	stopped bool
}

func newProgressLine(w io.Writer) *progressLine { return &progressLine{w: w} }

// Write lets the logger print above the progress line.
func (p *progressLine) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
	n, err := p.w.Write(b)
	fmt.Fprint(p.w, p.line)
	return n, err
}

func (p *progressLine) observe(e crawler.Event) {
	if e.State == "fetched" {
		p.mu.Lock()
		p.fetched++
		p.mu.Unlock()
	}
}

// run refreshes the line every second from the crawl's live status. stop
// (which may be called more than once) ends that and clears the line for
// good: a line drawn from a status taken before the crawl stopped is
// stale, and redrawn under the final summary it read as the last word.
func (p *progressLine) run(c *crawler.Crawler) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last, lastAt := 0, time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				qctx, qcancel := context.WithTimeout(ctx, 900*time.Millisecond)
				st, err := c.Status(qctx)
				qcancel()
				if err != nil {
					continue
				}
				waiting := 0
				for _, h := range st.PerHost {
					if !h.NextRequest.IsZero() && h.NextRequest.After(now) {
						waiting++
					}
				}
				p.mu.Lock()
				if p.stopped {
					p.mu.Unlock()
					return
				}
				rate := float64(p.fetched-last) / now.Sub(lastAt).Seconds()
				last, lastAt = p.fetched, now
				p.line = fmt.Sprintf("fetched %d  queued %d  in flight %d  %.1f pages/s  %d hosts waiting on politeness",
					st.Fetched, st.Queued, st.InFlight, rate, waiting)
				fmt.Fprint(p.w, "\r\033[K"+p.line)
				p.mu.Unlock()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.stopped, p.line = true, ""
			fmt.Fprint(p.w, "\r\033[K")
			p.mu.Unlock()
			cancel()
			<-done
		})
	}
}
