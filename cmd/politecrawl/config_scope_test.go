package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestPolicyErrorsNameTheKeyAndTheRule: each bad rule is refused at
// start (and so on reload, which loads the same way) with its key and
// the rule as written.
func TestPolicyErrorsNameTheKeyAndTheRule(t *testing.T) {
	const seed = "seeds: [\"https://docs.example.org/3/\"]\n"
	for _, c := range []struct{ yaml, want string }{
		{"scope:\n  exclude_patterns: ['(unclosed']\n", `scope.exclude_patterns[0] "(unclosed"`},
		{"scope:\n  prefixes: [docs.example.org/guide/]\n", `scope.prefixes[0] "docs.example.org/guide/"`},
		{"scope:\n  exclude: ['ftp://x/']\n", `scope.exclude[0] "ftp://x/"`},
		{"scope:\n  domains: ['example.org/x']\n", `scope.domains[0] "example.org/x"`},
		{"scope:\n  skip_extensions: ['tar.gz']\n", `scope.skip_extensions[0] "tar.gz"`},
		{"scope:\n  accept_types: [html]\n", `scope.accept_types[0]: "html" is not a media type`},
		{"scope:\n  hosts: ['http://a/']\n", `scope.hosts[0] "http://a/"`},
		{"hosts:\n  partner.example.com:\n    min_delay: 10s\n", "hosts.partner.example.com: partner.example.com is out of scope"},
		{"hosts:\n  docs.example.org:\n    min_delay: 10\n", "hosts.docs.example.org.min_delay: 10 has no unit"},
		{"hosts:\n  docs.example.org:\n    min_delay: 10ms\n", "hosts.docs.example.org.min_delay: 10ms is below the 100ms floor"},
		{"hosts:\n  docs.example.org:\n    min_delay: -5s\n", "hosts.docs.example.org.min_delay: -5s must be more than 0"},
		{"hosts:\n  docs.example.org:\n    min_delay: 0s\n", "hosts.docs.example.org.min_delay: 0s must be more than 0"},
		{"hosts:\n  docs.example.org:\n    max_page: 10\n", "hosts.docs.example.org: unknown key max_page"},
		{"hosts:\n  docs.example.org:\n    max_pages: -1\n", "hosts.docs.example.org.max_pages"},
		{"hosts: [a]\n", "hosts: must map host names"},
	} {
		_, err := loadConfig(writeConfig(t, seed+c.yaml), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.yaml, err, c.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error spans lines: %q", c.yaml, err)
		}
	}
}

// TestPolicyConfigReachesTheCrawler: rules with their lines in the file,
// overrides keyed by dotted host names (which viper would split), the
// domain an override names reaching hosts under an included domain.
func TestPolicyConfigReachesTheCrawler(t *testing.T) {
	path := writeConfig(t, `seeds: ["https://docs.example.org/3/"]
scope:
  domains: [example.org]
  prefixes:
    - https://www.python.org/doc/
  exclude_patterns:
    - '\.txt$'
  accept_types: [text/html]
hosts:
  example.org:
    min_delay: 2s
    store_bodies: false
  www.python.org: {max_pages: 50, warc: false}
`)
	c, err := loadConfig(path, pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	cc := c.crawlerConfig(nil)
	if got := cc.Rules.Where("scope.exclude_patterns[0]"); got != path+":7" {
		t.Errorf("exclude_patterns[0] is at %q, want %s:7", got, path)
	}
	o := cc.Hosts["example.org"]
	if o.MinDelay != 2*time.Second || o.StoreBodies == nil || *o.StoreBodies || o.Where != path+":10" {
		t.Errorf("hosts.example.org = %+v", o)
	}
	if p := cc.Hosts["www.python.org"]; p.MaxPages != 50 || p.WARC == nil || *p.WARC {
		t.Errorf("hosts.www.python.org = %+v", p)
	}
	if len(cc.Fetch.AcceptTypes) != 1 {
		t.Errorf("accept_types = %v", cc.Fetch.AcceptTypes)
	}
	s, err := c.compileScope()
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Decide("https://docs.example.org/x.txt"); d.In || d.Rule.Where != path+":7" {
		t.Errorf("x.txt: %s", d)
	}
}
