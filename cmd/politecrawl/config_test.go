package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExampleConfigIsValidAndComplete(t *testing.T) {
	c, err := loadConfig("../../config.example.yaml", pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	if c.Politeness.DefaultDelay != time.Second || c.Agent.Name != "politecrawl" {
		t.Errorf("example values: %+v", c)
	}
	// Every key with a default is documented in the example, and nothing else.
	raw, _ := os.ReadFile("../../config.example.yaml")
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			keys[prefix+k] = true
		}
	}
	walk("", doc)
	for k := range defaults {
		if !keys[k] {
			t.Errorf("key %s has a default but is not in config.example.yaml", k)
		}
	}
	for k := range keys {
		if _, ok := defaults[k]; !ok {
			t.Errorf("config.example.yaml has %s, which has no default", k)
		}
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want string
	}{
		{"agent:\n  name: \"polite crawl\"\n", "agent.name"},
		{"agent:\n  name: mybot\n", "agent.user_agent"},
		{"seeds: [\"ftp://x/\"]\n", `seeds[0]: "ftp://x/": not an http or https URL`},
		// Said once, with the fix (it was "... is not an absolute http(s)
		// URL: normalise "example.org/": not an http or https URL: ...").
		{"seeds: [example.org/]\n", `seeds[0]: "example.org/": not an http or https URL: it has no scheme; add http:// or https://`},
		{"workers: 0\n", "workers"},
		{"politeness:\n  default_delay: -1s\n", "politeness.default_delay"},
		{"politeness:\n  default_delay: 10s\n  max_delay: 5s\n", "politeness.max_delay"},
		{"politeness:\n  latency_factor: -1\n", "politeness.latency_factor: -1 must be 0 (off)"},
		{"politeness:\n  latency_factor: 5000\n", "politeness.latency_factor"},
		{"politeness:\n  error_backoff: maybe\n", "error_backoff"},
		{"politness:\n  default_delay: 1s\n", "unknown key(s) politness"},
		// Misspelt keys in two sections: both named, with their sections, in one line.
		{"daemon_x: 1\ncluster:\n  name: x\n  bogus: 1\n", "cluster.bogus"},
		{"daemon_x: 1\ncluster:\n  name: x\n  bogus: 1\n", "daemon_x"},
		{"scope:\n  max_dept: 3\n", "max_dept"},
		{"log:\n  format: xml\n", "log.format"},
		{"network:\n  max_body: 10\n", "network.max_body"},
		{"network:\n  idle_connections: -1\n", "network.idle_connections"},
		{"cluster:\n  nats: nats://127.0.0.1:4222\n", "cluster.name"},
		{"cluster:\n  nats: http://127.0.0.1:4222\n  name: c\n", "cluster.nats"},
		{"cluster:\n  embed: 127.0.0.1\n  name: c\n", "cluster.embed"},
		{"cluster:\n  nats: 127.0.0.1:4222\n  name: c\n  shards: 0\n", "cluster.shards"},
		{"cluster:\n  nats: 127.0.0.1:4222\n  name: c\n  lease_ttl: 100ms\n", "cluster.lease_ttl"},
		{"cluster:\n  nats: 127.0.0.1:4222\n  name: c\n  lease_ttl: 10\n", "cluster.lease_ttl"},
		{"cluster:\n  nats: 127.0.0.1:4222\n  name: c\ndaemon:\n  recrawl_interval: 1h\n", "daemon.recrawl_interval"},
		{"politeness:\n  default_delay: soon\n", "default_delay"},
		{"agent: [\n", "config"},
		// A value of the wrong type, said in words (it was "'workers'
		// cannot parse value as 'int': strconv.ParseInt: invalid syntax").
		{"workers: lots\n", `: workers: "lots" is not a whole number`},
		{"network:\n  max_body: 10MB\n", `: network.max_body: "10MB" is not a whole number`},
		{"politeness:\n  latency_factor: fast\n", `: politeness.latency_factor: "fast" is not a number`},
		{"sitemaps: maybe\n", `: sitemaps: "maybe" is not true or false`},
		{"politeness:\n  default_delay: 2 seconds\n", `: politeness.default_delay: "2 seconds" is not a duration`},
		{"workers: [1, 2]\n", ": workers: a list where a whole number belongs"},
		// "" is refused too: decoded, it would be the zero value, which
		// turns error_backoff and the adaptive delay off.
		{"workers: \"\"\n", `: workers: "" is not a whole number`},
		{"politeness:\n  error_backoff: \"\"\n", `: politeness.error_backoff: "" is not true or false`},
		{"politeness:\n  latency_factor: \"\"\n", `: politeness.latency_factor: "" is not a number`},
		{"politeness:\n  default_delay: \"\"\n", `: politeness.default_delay: "" is not a duration`},
		{"agent:\n  name: [a]\n", ": agent.name: a list where a single value belongs"},
		{"scope:\n  hosts: {a: 1}\n", ": scope.hosts: a section (key: value lines) where a list belongs"},
		// A duration without a unit would be nanoseconds: refused, naming the key.
		{"politeness:\n  default_delay: 2\n", "politeness.default_delay: 2 has no unit"},
		{"politeness:\n  max_delay: 1.5\n", "politeness.max_delay: 1.5 has no unit"},
		{"daemon:\n  shutdown_timeout: 30\n", "daemon.shutdown_timeout: 30 has no unit"},
		{"network:\n  timeout: 60\n", "network.timeout"},
		// Below the politeness floor without allow_fast.
		{"politeness:\n  default_delay: 2ms\n", "politeness.default_delay: 2ms is below the 100ms floor"},
		{"politeness:\n  default_delay: 0s\n", "politeness.allow_fast"},
		{"limits:\n  max_links_per_page: 0\n", "limits.max_links_per_page"},
	} {
		_, err := loadConfig(writeConfig(t, c.yaml), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %q", c.yaml, err, c.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error spans lines: %q", c.yaml, err)
		}
	}
}

// TestConfigErrorsNameTheVariable: a wrong value from a POLITECRAWL_*
// variable or a flag is said of that variable or flag, as clearly as the
// same mistake in the file, and the file (which is right) is not blamed.
// Before, every message began "config FILE:" and an env duration without
// a unit got only "time: missing unit in duration".
func TestConfigErrorsNameTheVariable(t *testing.T) {
	for i, c := range []struct {
		env   map[string]string
		flags []string
		file  string
		want  []string
	}{
		{env: map[string]string{"POLITECRAWL_POLITENESS_DEFAULT_DELAY": "2"},
			want: []string{"environment variable POLITECRAWL_POLITENESS_DEFAULT_DELAY: 2 has no unit; write it with one, e.g. 2s"}},
		{env: map[string]string{"POLITECRAWL_NETWORK_TIMEOUT": "soon"},
			want: []string{`environment variable POLITECRAWL_NETWORK_TIMEOUT: "soon" is not a duration`}},
		{env: map[string]string{"POLITECRAWL_WORKERS": "lots"},
			want: []string{`environment variable POLITECRAWL_WORKERS: "lots" is not a whole number`}},
		{env: map[string]string{"POLITECRAWL_SITEMAPS": "yes please"},
			want: []string{`environment variable POLITECRAWL_SITEMAPS: "yes please" is not true or false`}},
		{env: map[string]string{"POLITECRAWL_WORKERS": "0"},
			want: []string{"environment variable POLITECRAWL_WORKERS: 0 must be between 1 and 1024"}},
		{env: map[string]string{"POLITECRAWL_CLUSTER_NATS": "http://127.0.0.1:4222", "POLITECRAWL_CLUSTER_NAME": "c"},
			want: []string{"environment variable POLITECRAWL_CLUSTER_NATS: "}},
		{flags: []string{"--log-level", "loud"}, want: []string{`flag --log-level: "loud" must be debug`}},
		// The file's mistakes and the variable's, each under its source.
		{env: map[string]string{"POLITECRAWL_WORKERS": "0"}, file: "log:\n  format: xml\n",
			want: []string{": log.format: \"xml\"", "; environment variable POLITECRAWL_WORKERS: 0 must be"}},
		{env: map[string]string{"POLITECRAWL_POLITENESS_MAX_DELAY": "3"}, file: "politeness:\n  default_delay: 2\n",
			want: []string{": politeness.default_delay: 2 has no unit", "environment variable POLITECRAWL_POLITENESS_MAX_DELAY: 3 has no unit"}},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			flags := pflag.NewFlagSet("x", pflag.ContinueOnError)
			flags.String("log-level", "info", "")
			flags.String("state", "", "")
			if err := flags.Parse(c.flags); err != nil {
				t.Fatal(err)
			}
			path := writeConfig(t, "workers: 2\n"+c.file)
			_, err := loadConfig(path, flags, flagBinds)
			for _, want := range c.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%v %v: error %v, want one with %q", c.env, c.flags, err, want)
				}
			}
			if err != nil && c.file == "" && strings.Contains(err.Error(), path) {
				t.Errorf("%v %v: the file is blamed: %v", c.env, c.flags, err)
			}
		})
	}
}

func TestConfigPrecedence(t *testing.T) {
	path := writeConfig(t, "state: from-file.db\nworkers: 3\npoliteness:\n  default_delay: 2s\n")
	t.Setenv("POLITECRAWL_WORKERS", "5")
	t.Setenv("POLITECRAWL_POLITENESS_MAX_DELAY", "90s")
	t.Setenv("POLITECRAWL_SEEDS", "https://a.example/,https://b.example/")
	flags := pflag.NewFlagSet("x", pflag.ContinueOnError)
	flags.String("state", "", "")
	flags.Parse([]string{"--state", "from-flag.db"})
	c, err := loadConfig(path, flags, flagBinds)
	if err != nil {
		t.Fatal(err)
	}
	if c.State != "from-flag.db" || c.Workers != 5 || c.Politeness.DefaultDelay != 2*time.Second ||
		c.Politeness.MaxDelay != 90*time.Second || len(c.Seeds) != 2 {
		t.Errorf("precedence: state %q workers %d delay %v max %v seeds %q", c.State, c.Workers, c.Politeness.DefaultDelay, c.Politeness.MaxDelay, c.Seeds)
	}
}

func TestConfigDurations(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want time.Duration
	}{
		{"politeness:\n  default_delay: 2s\n", 2 * time.Second},
		{"politeness:\n  default_delay: 250ms\n", 250 * time.Millisecond},
		{"politeness:\n  default_delay: 20ms\n  allow_fast: true\n", 20 * time.Millisecond},
		{"politeness:\n  default_delay: 0\n  allow_fast: true\n", 0},
	} {
		cfg, err := loadConfig(writeConfig(t, c.yaml), pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
		if err != nil {
			t.Errorf("%q: %v", c.yaml, err)
			continue
		}
		if cfg.Politeness.DefaultDelay != c.want {
			t.Errorf("%q: default_delay %v, want %v", c.yaml, cfg.Politeness.DefaultDelay, c.want)
		}
	}
	// The environment is as strict as the file.
	t.Setenv("POLITECRAWL_POLITENESS_DEFAULT_DELAY", "2")
	if _, err := loadConfig(writeConfig(t, "workers: 2\n"), pflag.NewFlagSet("x", pflag.ContinueOnError), nil); err == nil {
		t.Error("POLITECRAWL_POLITENESS_DEFAULT_DELAY=2 accepted")
	}
}

func TestRelativeStateResolvesAgainstTheConfigFile(t *testing.T) {
	path := writeConfig(t, "state: crawl.db\n")
	cfg, err := loadConfig(path, pflag.NewFlagSet("x", pflag.ContinueOnError), flagBinds)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(path), "crawl.db"); cfg.State != want {
		t.Errorf("state %q, want %q", cfg.State, want)
	}
	flags := pflag.NewFlagSet("x", pflag.ContinueOnError)
	flags.String("state", "", "")
	flags.Parse([]string{"--state", "here.db"})
	if cfg, err = loadConfig(path, flags, flagBinds); err != nil || cfg.State != "here.db" {
		t.Errorf("--state here.db: state %q, %v; want it relative to the working directory", cfg.State, err)
	}
}

// TestRestartNeededNamesKeys: the SIGHUP log line's need_restart names
// the keys whose change waits for a restart, as in the config file, not
// their sections; nothing when only live keys (applied by the reload
// before the comparison) or nothing changed.
func TestRestartNeededNamesKeys(t *testing.T) {
	base, err := loadConfig("../../config.example.yaml", pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		want   []string
	}{
		{"nothing", func(c *Config) {}, nil},
		{"daemon", func(c *Config) { c.Daemon.ShutdownTimeout++ }, []string{"daemon.shutdown_timeout"}},
		{"two sections", func(c *Config) { c.Network.Timeout++; c.Agent.UserAgent += "x" }, []string{"agent.user_agent", "network.timeout"}},
		{"cluster and warc", func(c *Config) { c.Cluster.Node += "x"; c.WARC.Dir += "x" }, []string{"cluster.node", "warc.dir"}},
		{"a list", func(c *Config) { c.Scope.Hosts = append(c.Scope.Hosts, "x.example") }, []string{"scope.hosts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := *base
			next.Scope.Hosts = slices.Clone(base.Scope.Hosts)
			tc.change(&next)
			if got := restartNeeded(base, &next); !slices.Equal(got, tc.want) {
				t.Errorf("restartNeeded = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRunWithoutSeedsNamesTheFile: a config without seeds is refused
// naming the file, as every other config error is (it said "config:
// seeds: ...").
func TestRunWithoutSeedsNamesTheFile(t *testing.T) {
	path := writeConfig(t, "state: s.db\n")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"run", "-c", path}, &out, &errb)
	if want := "politecrawl: config " + path + ": seeds: give at least one URL"; code != 2 || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("run without seeds: exit %d, %q; want 2, %q", code, errb.String(), want)
	}
}

// TestUnknownVariablesWarned: a POLITECRAWL_* variable that matches no
// key gets one warning line (it was ignored without a word, where the
// same misspelling in the file is refused); the keys' own variables and
// the test suite's do not.
func TestUnknownVariablesWarned(t *testing.T) {
	t.Setenv("POLITECRAWL_POLITNESS_DEFAULT_DELAY", "2s")
	t.Setenv("POLITECRAWL_WORKERS", "3")
	t.Setenv("POLITECRAWL_RESTART_N", "10")
	var out, errb bytes.Buffer
	Main(context.Background(), []string{"status", "--state", filepath.Join(t.TempDir(), "s.db")}, &out, &errb)
	want := "politecrawl: warning: environment variable POLITECRAWL_POLITNESS_DEFAULT_DELAY matches no config key and is ignored"
	if !strings.HasPrefix(errb.String(), want) || strings.Count(errb.String(), "warning:") != 1 {
		t.Errorf("stderr %q, want one warning, %q", errb.String(), want)
	}
}
