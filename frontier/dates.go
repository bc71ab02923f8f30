package frontier

import (
	"strconv"
	"strings"
	"time"
)

// period is a date found in a URL: a whole day, month or year, as the
// half-open interval [start, end) in UTC.
type period struct {
	start, end time.Time
	text       string // as written, for reasons
}

// Years outside this range are not read as dates: far enough to catch any
// calendar walk, narrow enough to leave most 4-digit codes alone.
const minYear, maxYear = 1600, 2199

// urlDates returns the dates a normal URL's path and query carry:
// /2024/05/17/, /2024/05/, a segment holding 2024-05-17 or 2024-05, query
// values such as month=2031-07 or date=20310704, and year=2040&month=3.
// A bare 4-digit path segment is not taken for a year: it is as likely an
// identifier. It also returns the URL's date shape: path and query with
// each date replaced by "D", what the pages of one calendar share.
func urlDates(path, query string) ([]period, string) {
	var out []period
	var shape strings.Builder
	segs := strings.Split(path, "/")
	for i := 0; i < len(segs); i++ {
		if i > 0 {
			shape.WriteByte('/')
		}
		if y, ok := number(segs[i], 4, 4); ok && i+1 < len(segs) {
			if m, ok := number(segs[i+1], 1, 2); ok {
				d, n := 0, 2
				if i+2 < len(segs) {
					if d, _ = number(segs[i+2], 1, 2); d != 0 {
						n = 3
					}
				}
				if p, ok := makePeriod(y, m, d, strings.Join(segs[i:i+n], "/")); ok {
					out = append(out, p)
					shape.WriteByte('D')
					i += n - 1
					continue
				}
			}
		}
		var seg string
		out, seg = dashedDates(segs[i], out)
		shape.WriteString(seg)
	}
	if query == "" {
		return out, shape.String()
	}
	shape.WriteByte('?')
	var y, m, d int
	for i, kv := range strings.Split(query, "&") {
		if i > 0 {
			shape.WriteByte('&')
		}
		name, val, _ := strings.Cut(kv, "=")
		shape.WriteString(name)
		shape.WriteByte('=')
		name = strings.ToLower(name)
		n := len(out)
		var v string
		if out, v = dashedDates(val, out); len(out) > n {
			shape.WriteString(v)
			continue
		}
		isNum := allDigits(val)
		switch {
		case name == "year" || name == "yr" || name == "y":
			y, _ = number(val, 4, 4)
		case name == "month" || name == "mon" || name == "m":
			m, _ = number(val, 1, 2)
		case name == "day" || name == "d":
			d, _ = number(val, 1, 2)
		default:
			isNum = false
			if dateName(name) {
				if p, ok := compactDate(val); ok {
					out = append(out, p)
					isNum = true
				}
			}
		}
		if isNum {
			shape.WriteByte('D')
		} else {
			shape.WriteString(val)
		}
	}
	if y != 0 {
		if p, ok := makePeriod(y, m, d, "year="+strconv.Itoa(y)); ok {
			out = append(out, p)
		}
	}
	return out, shape.String()
}

// dashedDates appends the YYYY-MM-DD and YYYY-MM dates in s (delimited by
// non-digits) to out, and returns s with each of them replaced by "D".
func dashedDates(s string, out []period) ([]period, string) {
	var shape strings.Builder
	last := 0
	for i := 0; i+7 <= len(s); i++ {
		if i > 0 && isDigit(s[i-1]) || !allDigits(s[i:i+4]) || s[i+4] != '-' {
			continue
		}
		j := i + 5
		for j < len(s) && j < i+7 && isDigit(s[j]) {
			j++
		}
		if j == i+5 || j < len(s) && isDigit(s[j]) {
			continue
		}
		y, _ := strconv.Atoi(s[i : i+4])
		m, _ := strconv.Atoi(s[i+5 : j])
		d, end := 0, j
		if j+1 < len(s) && s[j] == '-' && isDigit(s[j+1]) {
			k := j + 1
			for k < len(s) && k < j+3 && isDigit(s[k]) {
				k++
			}
			if k == len(s) || !isDigit(s[k]) {
				d, end = atoi(s[j+1:k]), k
			}
		}
		if p, ok := makePeriod(y, m, d, s[i:end]); ok {
			out = append(out, p)
			shape.WriteString(s[last:i])
			shape.WriteByte('D')
			last = end
			i = end - 1
		}
	}
	if last == 0 {
		return out, s
	}
	shape.WriteString(s[last:])
	return out, shape.String()
}

// compactDate reads YYYYMMDD or YYYYMM, for query values whose name says
// they are dates.
func compactDate(v string) (period, bool) {
	if !allDigits(v) || len(v) != 6 && len(v) != 8 {
		return period{}, false
	}
	d := 0
	if len(v) == 8 {
		d = atoi(v[6:])
	}
	return makePeriod(atoi(v[:4]), atoi(v[4:6]), d, v)
}

func dateName(name string) bool {
	for _, w := range []string{"date", "day", "month", "year", "cal", "week"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// makePeriod checks y, m (0: the whole year) and d (0: the whole month).
func makePeriod(y, m, d int, text string) (period, bool) {
	if y < minYear || y > maxYear || m < 0 || m > 12 || d < 0 || d > 31 || m == 0 && d != 0 {
		return period{}, false
	}
	switch {
	case m == 0:
		s := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return period{s, s.AddDate(1, 0, 0), text}, true
	case d == 0:
		s := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
		return period{s, s.AddDate(0, 1, 0), text}, true
	}
	s := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if s.Day() != d { // 2031-02-30
		return period{}, false
	}
	return period{s, s.AddDate(0, 0, 1), text}, true
}

// number reads s as a decimal of minLen to maxLen digits.
func number(s string, minLen, maxLen int) (int, bool) {
	if len(s) < minLen || len(s) > maxLen || !allDigits(s) {
		return 0, false
	}
	return atoi(s), true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
