package frontier

import (
	"fmt"
	"hash/maphash"
	"strings"
	"time"
)

// DefaultLimits are the limits politecrawl runs with unless configured:
// no depth or page cap, and every trap guard on.
func DefaultLimits() Limits {
	return Limits{
		MaxPagesPerHost:     100000,
		MaxURLLength:        2048,
		MaxRepeatedSegments: 3,
		MaxQueryParams:      16,
		MaxParamRepeats:     3,
		MaxQueryLength:      1024,
		RefuseSessionIDs:    true,
		MaxDaysAhead:        366,
		CalendarDays:        366,
		MaxPerDateShape:     500,
	}
}

// urlParts splits a normal URL into host, path and query.
func urlParts(normal string) (host, path, query string) {
	rest := normal
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	rest, query, _ = strings.Cut(rest, "?")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i], rest[i:], query
	}
	return rest, "/", query
}

// queryTrap checks the query's size and repetition.
func (l Limits) queryTrap(query string) string {
	if query == "" {
		return ""
	}
	if l.MaxQueryLength > 0 && len(query) > l.MaxQueryLength {
		return fmt.Sprintf("trap: query longer than %d bytes", l.MaxQueryLength)
	}
	params := strings.Split(query, "&")
	if l.MaxQueryParams > 0 && len(params) > l.MaxQueryParams {
		return fmt.Sprintf("trap: more than %d query parameters", l.MaxQueryParams)
	}
	if l.MaxParamRepeats <= 0 {
		return ""
	}
	pairs := make(map[string]bool, len(params))
	names := make(map[string]int, len(params))
	for _, kv := range params {
		if pairs[kv] {
			return fmt.Sprintf("trap: query parameter %.40q repeated", kv)
		}
		pairs[kv] = true
		name, _, _ := strings.Cut(kv, "=")
		if names[name]++; names[name] > l.MaxParamRepeats {
			return fmt.Sprintf("trap: query parameter %.40q occurs more than %d times", name, l.MaxParamRepeats)
		}
	}
	return ""
}

// sessionNames are parameters that carry session ids (path parameters
// such as ;jsessionid=... too). Matched case-insensitively.
var sessionNames = []string{"jsessionid", "phpsessid", "sessionid", "session_id", "sessid", "sid", "oscsid", "zenid", "aspsessionid"}

// sessionID returns the name of a session id the URL carries: a known
// name whose value looks random (SPEC 5.3: at least 16 characters of
// letters, digits, '-' and '_', with a digit). "sid=3" is left alone.
//
// It runs for every URL admitted, so it walks the path and query in place
// rather than splitting them.
func sessionID(path, query string) string {
	for rest := path; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if _, params, ok := strings.Cut(seg, ";"); ok {
			if name := sessionParam(params, ";"); name != "" {
				return name
			}
		}
	}
	return sessionParam(query, "&")
}

// sessionParam returns the name of the first session id among the
// name=value pairs of list, separated by sep.
func sessionParam(list, sep string) string {
	for {
		kv, rest, more := strings.Cut(list, sep)
		if name, val, ok := strings.Cut(kv, "="); ok && randomLooking(val) {
			name = strings.ToLower(name)
			for _, s := range sessionNames {
				if name == s || s == "aspsessionid" && strings.HasPrefix(name, s) {
					return name
				}
			}
		}
		if !more {
			return ""
		}
		list = rest
	}
}

func randomLooking(v string) bool {
	digit := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			digit = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_':
		default:
			return false
		}
	}
	return digit && len(v) >= 16
}

// dateTrap checks the dates a URL carries against the time windows:
// never further ahead than MaxDaysAhead; and, for a calendar step (a
// dated URL linked from a page of the same host and date shape with
// another date), never further from now than CalendarDays either way.
func (l Limits) dateTrap(dates []period, shape, parent, host string, now time.Time) string {
	if l.MaxDaysAhead > 0 {
		limit := now.AddDate(0, 0, l.MaxDaysAhead)
		for _, d := range dates {
			if d.start.After(limit) {
				return fmt.Sprintf("trap: date %s more than %d days ahead", d.text, l.MaxDaysAhead)
			}
		}
	}
	if l.CalendarDays <= 0 || parent == "" {
		return ""
	}
	ph, pp, pq := urlParts(parent)
	if ph != host {
		return ""
	}
	if pdates, pshape := urlDates(pp, pq); pshape != shape || sameDates(pdates, dates) {
		return ""
	}
	early, late := now.AddDate(0, 0, -l.CalendarDays), now.AddDate(0, 0, l.CalendarDays)
	for _, d := range dates {
		if !d.end.After(early) || d.start.After(late) {
			return fmt.Sprintf("trap: calendar step to %s, more than %d days from today", d.text, l.CalendarDays)
		}
	}
	return ""
}

func sameDates(a, b []period) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].start.Equal(b[i].start) || !a[i].end.Equal(b[i].end) {
			return false
		}
	}
	return true
}

// shapeCounts counts admitted URLs per (host, shape) in fixed memory: a
// count-min sketch with conservative update, 4 rows of 65,536 saturating
// 16-bit counters (512 KiB). Counts can only be overestimated, and only
// when keys collide in all four rows.
type shapeCounts struct {
	seed maphash.Seed
	rows [4][1 << 16]uint16
}

func newShapeCounts() *shapeCounts { return &shapeCounts{seed: maphash.MakeSeed()} }

func (s *shapeCounts) cells(key string) [4]uint16 {
	h := maphash.String(s.seed, key)
	return [4]uint16{uint16(h), uint16(h >> 16), uint16(h >> 32), uint16(h >> 48)}
}

// get returns the estimated count of key.
func (s *shapeCounts) get(key string) int {
	c := s.cells(key)
	n := s.rows[0][c[0]]
	for r := 1; r < 4; r++ {
		n = min(n, s.rows[r][c[r]])
	}
	return int(n)
}

// add counts one more key.
func (s *shapeCounts) add(key string) {
	c := s.cells(key)
	n := uint16(s.get(key))
	if n == ^uint16(0) {
		return
	}
	for r := range 4 {
		s.rows[r][c[r]] = max(s.rows[r][c[r]], n+1)
	}
}
