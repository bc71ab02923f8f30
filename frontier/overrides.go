package frontier

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Override is what the config's hosts: section says about one host or
// domain. Zero fields leave the crawl-wide setting as it is.
type Override struct {
	// MinDelay replaces politeness.default_delay as the host's floor;
	// robots.txt's Crawl-delay and Request-rate still win when slower.
	MinDelay time.Duration
	// MaxPages caps the URLs admitted for the host (like
	// traps.max_pages_per_host, and both apply).
	MaxPages int
	// StoreBodies and WARC, when set, replace storage.store_bodies and
	// whether the host's exchanges go to the WARC files.
	StoreBodies, WARC *bool
	// Key names the entry ("hosts.docs.example.org") and Where its place
	// in the config file ("crawl.yaml:31"), for explanations.
	Key, Where string
}

// Overrides maps hosts and domains to their Override. An entry applies to
// its host, on any port, and to its subdomains; the most specific entry
// wins (an authority with a port, then the host, then each parent
// domain). A nil *Overrides has none. Immutable once made; safe for
// concurrent use.
type Overrides struct {
	m map[string]Override
}

// NewOverrides makes Overrides from entries keyed by host, host:port or
// domain (lower case, as URLs are normalised).
func NewOverrides(entries map[string]Override) *Overrides {
	o := &Overrides{m: make(map[string]Override, len(entries))}
	for k, v := range entries {
		o.m[strings.ToLower(strings.TrimSuffix(k, "."))] = v
	}
	return o
}

// For returns the override that applies to authority (host[:port]).
func (o *Overrides) For(authority string) (Override, bool) {
	if o == nil || len(o.m) == 0 {
		return Override{}, false
	}
	if v, ok := o.m[authority]; ok {
		return v, true
	}
	host := authority
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	for d := host; d != ""; {
		if v, ok := o.m[d]; ok {
			return v, true
		}
		i := strings.IndexByte(d, '.')
		if i < 0 {
			break
		}
		d = d[i+1:]
	}
	return Override{}, false
}

// SetOverrides replaces the hosts: section (a configuration reload);
// host spacing follows with the next SetDelays.
func (f *Frontier[H]) SetOverrides(o *Overrides) {
	f.hosts = o
	f.admit.hosts = o
}

// StoreBodies says whether host's page bodies are kept: its override's
// store_bodies if it has one, else def.
func (f *Frontier[H]) StoreBodies(host string, def bool) bool {
	if o, ok := f.hosts.For(host); ok && o.StoreBodies != nil {
		return *o.StoreBodies
	}
	return def
}

// Archives says whether host's exchanges go to the WARC files: its
// override's warc if it has one, else def.
func (f *Frontier[H]) Archives(host string, def bool) bool {
	if o, ok := f.hosts.For(host); ok && o.WARC != nil {
		return *o.WARC
	}
	return def
}

// OverrideChanges says how the hosts: section now differs from was, a
// line per change in the reload log's style, by host:
// "hosts.docs.example.org.min_delay 200ms -> 500ms", "hosts.a.example
// added {max_pages: 10}", "hosts.b.example removed (was {min_delay:
// 10s})". An entry's place in the file (Where) is left out: an entry that
// only moved (a line added above it) has not changed. None: no change.
func OverrideChanges(was, now map[string]Override) []string {
	hosts := make([]string, 0, len(was)+len(now))
	for h := range was {
		hosts = append(hosts, h)
	}
	for h := range now {
		if _, ok := was[h]; !ok {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	var out []string
	for _, h := range hosts {
		a, inA := was[h]
		b, inB := now[h]
		switch {
		case !inA:
			out = append(out, b.name(h)+" added "+b.settings())
		case !inB:
			out = append(out, a.name(h)+" removed (was "+a.settings()+")")
		default:
			before, after := a.fields(), b.fields()
			for i, f := range before {
				if after[i][1] != f[1] {
					out = append(out, fmt.Sprintf("%s.%s %s -> %s", b.name(h), f[0], f[1], after[i][1]))
				}
			}
		}
	}
	return out
}

// name is the entry's key in the config file: Key, or hosts.HOST.
func (o Override) name(host string) string {
	if o.Key != "" {
		return o.Key
	}
	return "hosts." + host
}

// fields lists the entry's settings as the config file names them, each
// with its value ("unset" when the entry does not set it).
func (o Override) fields() [4][2]string {
	f := [4][2]string{{"min_delay", "unset"}, {"max_pages", "unset"}, {"store_bodies", "unset"}, {"warc", "unset"}}
	if o.MinDelay != 0 {
		f[0][1] = o.MinDelay.String()
	}
	if o.MaxPages != 0 {
		f[1][1] = fmt.Sprint(o.MaxPages)
	}
	for i, b := range []*bool{o.StoreBodies, o.WARC} {
		if b != nil {
			f[2+i][1] = fmt.Sprint(*b)
		}
	}
	return f
}

// settings is the entry as the config file writes it, its set keys only:
// "{min_delay: 10s, max_pages: 5000}".
func (o Override) settings() string {
	var set []string
	for _, f := range o.fields() {
		if f[1] != "unset" {
			set = append(set, f[0]+": "+f[1])
		}
	}
	return "{" + strings.Join(set, ", ") + "}"
}
