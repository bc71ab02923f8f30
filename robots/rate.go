package robots

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is a Request-rate record: at most Requests fetches per Per, inside
// Window when it is set. Seznam documents the record; a few sites use it.
type Rate struct {
	Requests int
	Per      time.Duration
	Window   Window // zero: all day
}

// Interval is the spacing between request starts the rate asks for.
func (r Rate) Interval() time.Duration {
	if r.Requests <= 0 {
		return 0
	}
	return r.Per / time.Duration(r.Requests)
}

// Window is a daily UTC time window, as offsets from midnight. End before
// Start wraps past midnight. The zero Window covers the whole day.
type Window struct {
	Start, End time.Duration
}

// IsZero reports whether w is the whole day.
func (w Window) IsZero() bool { return w == Window{} }

// Contains reports whether t falls inside the window.
func (w Window) Contains(t time.Time) bool {
	if w.IsZero() {
		return true
	}
	t = t.UTC()
	d := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
		time.Duration(t.Second())*time.Second
	if w.Start <= w.End {
		return d >= w.Start && d < w.End
	}
	return d >= w.Start || d < w.End
}

// maxDelay bounds parsed delays so that absurd values cannot overflow a
// time.Duration. Policy caps (politeness.max_delay) are applied by callers.
const maxDelay = 365 * 24 * time.Hour

// parseCrawlDelay reads a Crawl-delay value: seconds, fractional allowed.
// Negative, NaN, infinite or non-numeric values are invalid.
func parseCrawlDelay(v string) (time.Duration, bool) {
	if f := strings.Fields(v); len(f) > 0 {
		v = f[0]
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(s) || s < 0 {
		return 0, false
	}
	if s > maxDelay.Seconds() {
		return maxDelay, true
	}
	return time.Duration(s * float64(time.Second)), true
}

// parseRequestRate reads "n/t[unit] [hhmm-hhmm]", unit s (default), m, h
// or d, with optional spaces around the slash and before the unit. A zero or
// invalid n or t, or a malformed window, makes the record invalid.
func parseRequestRate(v string) (Rate, bool) {
	var r Rate
	n, rest, ok := strings.Cut(v, "/")
	if !ok {
		return r, false
	}
	req, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || req <= 0 {
		return r, false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return r, false
	}
	num := fields[0]
	fields = fields[1:]
	unit := time.Second
	if k := len(num); k > 0 {
		if u, ok := rateUnit(num[k-1]); ok {
			unit, num = u, num[:k-1]
		} else if len(fields) > 0 && len(fields[0]) == 1 {
			if u, ok := rateUnit(fields[0][0]); ok {
				unit, fields = u, fields[1:]
			}
		}
	}
	t, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(t) || t <= 0 || t*unit.Seconds() > maxDelay.Seconds() {
		return r, false
	}
	r.Requests, r.Per = req, time.Duration(t*float64(unit))
	if r.Per <= 0 {
		return Rate{}, false
	}
	if len(fields) > 0 {
		w, ok := parseWindow(fields[0])
		if !ok {
			return Rate{}, false
		}
		r.Window = w
	}
	return r, true
}

func rateUnit(c byte) (time.Duration, bool) {
	switch c {
	case 's', 'S':
		return time.Second, true
	case 'm', 'M':
		return time.Minute, true
	case 'h', 'H':
		return time.Hour, true
	case 'd', 'D':
		return 24 * time.Hour, true
	}
	return 0, false
}

// parseWindow reads "hhmm-hhmm" (a colon inside each time is tolerated).
func parseWindow(s string) (Window, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return Window{}, false
	}
	start, ok1 := parseHHMM(a)
	end, ok2 := parseHHMM(b)
	if !ok1 || !ok2 {
		return Window{}, false
	}
	return Window{Start: start, End: end}, true
}

func parseHHMM(s string) (time.Duration, bool) {
	s = strings.ReplaceAll(s, ":", "")
	if len(s) != 4 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n/100 > 23 || n%100 > 59 {
		return 0, false
	}
	return time.Duration(n/100)*time.Hour + time.Duration(n%100)*time.Minute, true
}
