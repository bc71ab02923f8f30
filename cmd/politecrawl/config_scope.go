package main

import (
	"fmt"
	"mime"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/scope"
	"go.yaml.in/yaml/v3"
)

// scopeFile is what the config file itself says beyond viper's reading:
// the line of every key (viper keeps none), so that an explanation can
// name the rule's place, and the hosts: section, keyed by host names that
// viper would split at their dots.
type scopeFile struct {
	path      string
	lines     map[string]int // "scope.prefixes[2]" -> line
	overrides map[string]frontier.Override
	problems  []error // "hosts.x: ..." errors found reading the section
}

// hostEntry is one entry of the hosts: section as written.
type hostEntry struct {
	MinDelay    string `yaml:"min_delay"`
	MaxPages    int    `yaml:"max_pages"`
	StoreBodies *bool  `yaml:"store_bodies"`
	WARC        *bool  `yaml:"warc"`
}

// readScopeFile reads path's key lines and hosts: section; an unreadable
// file gives an empty one (viper has reported it already).
func readScopeFile(path string) scopeFile {
	p := scopeFile{path: path, lines: map[string]int{}}
	if path == "" {
		return p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return p
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return p
	}
	p.walk("", doc.Content[0])
	if root := doc.Content[0]; root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "hosts" {
				p.readHosts(root.Content[i+1])
			}
		}
	}
	return p
}

// walk records the line of every key and sequence item under n.
func (p *scopeFile) walk(prefix string, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if prefix != "" {
				key = prefix + "." + key
			}
			p.lines[key] = n.Content[i].Line
			p.walk(key, n.Content[i+1])
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			key := fmt.Sprintf("%s[%d]", prefix, i)
			p.lines[key] = item.Line
			p.walk(key, item)
		}
	}
}

func (p *scopeFile) readHosts(n *yaml.Node) {
	p.overrides = map[string]frontier.Override{}
	if n.Kind != yaml.MappingNode {
		if n.Tag != "!!null" {
			p.problems = append(p.problems, fmt.Errorf("hosts: must map host names to settings (min_delay, max_pages, store_bodies, warc)"))
		}
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		host := strings.ToLower(strings.TrimSuffix(n.Content[i].Value, "."))
		key := "hosts." + host
		var e hostEntry
		dec := n.Content[i+1]
		if err := p.decodeStrict(dec, &e); err != nil {
			p.problems = append(p.problems, fmt.Errorf("%s: %v (keys: min_delay, max_pages, store_bodies, warc)", key, err))
			continue
		}
		o := frontier.Override{MaxPages: e.MaxPages, StoreBodies: e.StoreBodies, WARC: e.WARC, Key: key, Where: p.where(key)}
		if e.MinDelay != "" {
			if msg := badValue(reflect.TypeFor[time.Duration](), e.MinDelay); msg != "" {
				p.problems = append(p.problems, fmt.Errorf("%s.min_delay: %s", key, msg))
				continue
			}
			o.MinDelay, _ = time.ParseDuration(e.MinDelay)
			if o.MinDelay <= 0 {
				// 0 would read as not set, a negative as no spacing at all.
				p.problems = append(p.problems, fmt.Errorf("%s.min_delay: %s must be more than 0 (leave it out to use politeness.default_delay)", key, e.MinDelay))
				continue
			}
		}
		p.overrides[host] = o
	}
}

// decodeStrict decodes an entry, refusing keys hostEntry lacks.
func (p *scopeFile) decodeStrict(n *yaml.Node, e *hostEntry) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "min_delay", "max_pages", "store_bodies", "warc":
		default:
			return fmt.Errorf("unknown key %s", k)
		}
	}
	return n.Decode(e)
}

// where is "file:line" of key, or "" when the file does not write it.
func (p *scopeFile) where(key string) string {
	if l, ok := p.lines[key]; ok {
		return fmt.Sprintf("%s:%d", p.path, l)
	}
	return ""
}

// scopeRules is the scope section's rules for the crawler.
func (c *Config) scopeRules() scope.Config {
	s := c.Scope
	return scope.Config{Hosts: s.Hosts, Domains: s.Domains, Prefixes: s.Prefixes, SeedPrefix: s.SeedPrefix,
		Seeds: c.Seeds, Exclude: s.Exclude, ExcludePatterns: s.ExcludePatterns, SkipExtensions: s.SkipExtensions,
		Where: c.file.where}
}

// compileScope compiles the scope rules as the crawl will.
func (c *Config) compileScope() (*scope.Scope, error) { return scope.Compile(c.scopeRules()) }

// scopeProblems checks the scope rules, accept_types and the hosts:
// section: each error names the key and the rule.
func (c *Config) scopeProblems() []error {
	errs := append([]error(nil), c.file.problems...)
	s, err := c.compileScope()
	if err != nil {
		for _, e := range strings.Split(err.Error(), "\n") {
			errs = append(errs, fmt.Errorf("%s", e))
		}
	}
	for i, t := range c.Scope.AcceptTypes {
		if mt, _, err := mime.ParseMediaType(t); err != nil || !strings.Contains(mt, "/") {
			errs = append(errs, fmt.Errorf("scope.accept_types[%d]: %q is not a media type (give e.g. text/html or image/*)", i, t))
		}
	}
	hosts := make([]string, 0, len(c.file.overrides))
	for h := range c.file.overrides {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		o := c.file.overrides[h]
		switch {
		case o.MinDelay > 0 && o.MinDelay < minDelay && !c.Politeness.AllowFast:
			errs = append(errs, fmt.Errorf("%s.min_delay: %v is below the %v floor; set politeness.allow_fast: true if you run that site", o.Key, o.MinDelay, minDelay))
		case o.MaxPages < 0:
			errs = append(errs, fmt.Errorf("%s.max_pages: %d must be 0 (no limit) or more", o.Key, o.MaxPages))
		case s != nil && !s.Reaches(h):
			errs = append(errs, fmt.Errorf("%s: %s is out of scope: no scope rule includes it or a host under it", o.Key, h))
		}
	}
	return errs
}

// liveScope copies into c the crawl policy a reload applies live: the
// scope rules and the hosts: section (accept_types needs a restart).
func (c *Config) liveScope(next *Config) {
	s, n := &c.Scope, next.Scope
	s.Domains, s.Prefixes, s.SeedPrefix, s.Exclude, s.ExcludePatterns, s.SkipExtensions =
		n.Domains, n.Prefixes, n.SeedPrefix, n.Exclude, n.ExcludePatterns, n.SkipExtensions
	c.Hosts, c.file = next.Hosts, next.file
}
