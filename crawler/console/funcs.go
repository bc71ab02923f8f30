package console

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"
)

// funcs are the templates' helpers. Each returns plain text (escaped by
// html/template where it lands) or a URL built with url.PathEscape. now
// is the console's clock, for "in 1.2s".
func funcs(now func() time.Time) template.FuncMap {
	return template.FuncMap{
		"stamp":      stamp,
		"iso":        func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
		"from":       func(t time.Time) string { return from(t, now()) },
		"seconds":    seconds,
		"bytes":      humanBytes,
		"stateClass": stateClass,
		"hostURL":    func(h string) string { return "/hosts/" + url.PathEscape(h) },
		"add":        func(a, b int) int { return a + b },
	}
}

// stamp is a time of day in UTC, with tenths of a second (delays are
// often under a second).
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("15:04:05.0")
}

// from says how far t is from now: "in 1.2s" or "3s ago".
func from(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d >= 0:
		return "in " + roundDur(d).String()
	default:
		return roundDur(-d).String() + " ago"
	}
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(10 * time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func seconds(s float64) string {
	return roundDur(time.Duration(s * float64(time.Second))).String()
}

func humanBytes(n any) string {
	var f float64
	switch v := n.(type) {
	case int64:
		f = float64(v)
	case int:
		f = float64(v)
	case float64:
		f = v
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", f)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// stateClass is the CSS class of a host state: "backing off" ->
// "state-backing-off".
func stateClass(s string) string {
	var b strings.Builder
	b.WriteString("state-")
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
