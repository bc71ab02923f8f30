package crawler

import "github.com/politecrawl/politecrawl/crawler/status"

// liveStatus is status.Read plus what only the coordinator knows. It runs
// on the coordinator goroutine.
func (c *Crawler) liveStatus() (*status.Status, error) {
	now := c.cfg.Now()
	st, err := status.Read(c.db, now)
	if err != nil {
		return nil, err
	}
	// Tasks waiting for a worker have no request under way yet.
	st.Running, st.InFlight = true, c.work.gate.Busy()
	for i := range st.PerHost {
		h := &st.PerHost[i]
		v := c.front.View(h.Host, now)
		h.InFlight, h.NextRequest, h.IntervalS, h.DelayReason = v.InFlight, v.NextRequest, v.Interval.Seconds(), v.DelayReason
		if v.IP != "" {
			h.IP = v.IP
		}
	}
	return st, nil
}
