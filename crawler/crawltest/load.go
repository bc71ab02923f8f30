package crawltest

import "time"

// load makes a host answer slower the more it is asked: a struggling
// server.
type load struct {
	base, per, window time.Duration
}

// SetLoad makes the host take base plus per for every request that
// started within window before each one, instead of its pages' Delay:
// a server whose response time grows with the rate it is asked.
func (h *Host) SetLoad(base, per, window time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.load = &load{base, per, window}
}

// delay is how long a request starting at start takes, after the
// requests in log (the host's lock held).
func (l *load) delay(log []Request, start time.Time) time.Duration {
	n := 0
	for i := len(log) - 1; i >= 0 && start.Sub(log[i].Start) < l.window; i-- {
		n++
	}
	return l.base + time.Duration(n)*l.per
}

// ServerTimes returns how long the host took over each request, by its
// own clock, in arrival order.
func (h *Host) ServerTimes() []time.Duration {
	var out []time.Duration
	for _, r := range h.Log() {
		out = append(out, r.End.Sub(r.Start))
	}
	return out
}
