package frontier

import (
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
