package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/freshness"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Config is the config file, as typed values. Every key has a default
// (defaults below) and is documented in config.example.yaml.
type Config struct {
	Agent struct {
		Name      string `mapstructure:"name"`
		UserAgent string `mapstructure:"user_agent"`
		From      string `mapstructure:"from"`
	} `mapstructure:"agent"`
	Seeds   []string `mapstructure:"seeds"`
	State   string   `mapstructure:"state"`
	Workers int      `mapstructure:"workers"`
	Scope   struct {
		Hosts    []string `mapstructure:"hosts"`
		MaxDepth int      `mapstructure:"max_depth"`
		MaxPages int      `mapstructure:"max_pages"`
		// The crawl policy's rules (config_scope.go).
		Domains         []string `mapstructure:"domains"`
		Prefixes        []string `mapstructure:"prefixes"`
		SeedPrefix      bool     `mapstructure:"seed_prefix"`
		Exclude         []string `mapstructure:"exclude"`
		ExcludePatterns []string `mapstructure:"exclude_patterns"`
		SkipExtensions  []string `mapstructure:"skip_extensions"`
		AcceptTypes     []string `mapstructure:"accept_types"`
	} `mapstructure:"scope"`
	// Hosts is the hosts: section, read from the file itself (host names
	// hold dots, which viper takes for nesting): see config_scope.go.
	Hosts any `mapstructure:"hosts"`
	file  scopeFile
	Traps struct {
		MaxURLLength        int  `mapstructure:"max_url_length"`
		MaxRepeatedSegments int  `mapstructure:"max_repeated_segments"`
		MaxPagesPerHost     int  `mapstructure:"max_pages_per_host"`
		MaxQueryParams      int  `mapstructure:"max_query_params"`
		MaxParamRepeats     int  `mapstructure:"max_param_repeats"`
		MaxQueryLength      int  `mapstructure:"max_query_length"`
		RefuseSessionIDs    bool `mapstructure:"refuse_session_ids"`
		MaxDaysAhead        int  `mapstructure:"max_days_ahead"`
		CalendarDays        int  `mapstructure:"calendar_days"`
		MaxPerDatePattern   int  `mapstructure:"max_per_date_pattern"`
	} `mapstructure:"traps"`
	Politeness struct {
		DefaultDelay     time.Duration `mapstructure:"default_delay"`
		MaxDelay         time.Duration `mapstructure:"max_delay"`
		MaxRetries       int           `mapstructure:"max_retries"`
		BackoffBase      time.Duration `mapstructure:"backoff_base"`
		BackoffMax       time.Duration `mapstructure:"backoff_max"`
		MaxRetryAfter    time.Duration `mapstructure:"max_retry_after"`
		RobotsRetries    int           `mapstructure:"robots_retries"`
		RobotsRetryDelay time.Duration `mapstructure:"robots_retry_delay"`
		AllowFast        bool          `mapstructure:"allow_fast"`
		IPMaxInFlight    int           `mapstructure:"ip_max_in_flight"`
		IPDelay          time.Duration `mapstructure:"ip_delay"`
		LatencyFactor    float64       `mapstructure:"latency_factor"`
		ErrorBackoff     bool          `mapstructure:"error_backoff"`
	} `mapstructure:"politeness"`
	Sitemaps              bool `mapstructure:"sitemaps"`
	SitemapFetchesPerHost int  `mapstructure:"sitemap_fetches_per_host"`
	Network               struct {
		AllowPrivate   bool          `mapstructure:"allow_private"`
		ConnectTimeout time.Duration `mapstructure:"connect_timeout"`
		HeaderTimeout  time.Duration `mapstructure:"header_timeout"`
		Timeout        time.Duration `mapstructure:"timeout"`
		MaxBody        int64         `mapstructure:"max_body"`
		IdleConns      int           `mapstructure:"idle_connections"`
		DNSTTL         time.Duration `mapstructure:"dns_ttl"`
	} `mapstructure:"network"`
	Limits struct {
		MaxLinksPerPage int `mapstructure:"max_links_per_page"`
	} `mapstructure:"limits"`
	Storage struct {
		StoreBodies bool `mapstructure:"store_bodies"`
	} `mapstructure:"storage"`
	Log struct {
		Level  string `mapstructure:"level"`
		Format string `mapstructure:"format"`
	} `mapstructure:"log"`
	Daemon struct {
		ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
		RecrawlInterval time.Duration `mapstructure:"recrawl_interval"`
		RecrawlPolicy   string        `mapstructure:"recrawl_policy"`
		RecrawlMin      time.Duration `mapstructure:"recrawl_min"`
		RecrawlMax      time.Duration `mapstructure:"recrawl_max"`
		RecrawlShare    float64       `mapstructure:"recrawl_share"`
	} `mapstructure:"daemon"`
	HTTP struct {
		Listen string `mapstructure:"listen"`
		Token  string `mapstructure:"token"` // bearer token for changes over http.listen (httptoken.go)
	} `mapstructure:"http"`
	WARC    warcConfig    `mapstructure:"warc"`
	Cluster clusterConfig `mapstructure:"cluster"`
	Policy  policyConfig  `mapstructure:"policy"`

	// unknownEnv lists the POLITECRAWL_* variables that reach no key, to
	// warn of (unknownVariables).
	unknownEnv []string
}

// defaults holds every key's default. Setting each one is also what lets
// an environment variable alone reach Unmarshal.
var defaults = map[string]any{
	"agent.name":                    "politecrawl",
	"agent.user_agent":              "politecrawl/0.1 (+https://github.com/politecrawl/politecrawl)",
	"agent.from":                    "",
	"seeds":                         []string{},
	"state":                         "politecrawl.db",
	"workers":                       8,
	"scope.hosts":                   []string{},
	"scope.max_depth":               0,
	"scope.max_pages":               0,
	"scope.domains":                 []string{},
	"scope.prefixes":                []string{},
	"scope.seed_prefix":             false,
	"scope.exclude":                 []string{},
	"scope.exclude_patterns":        []string{},
	"scope.skip_extensions":         []string{},
	"scope.accept_types":            []string{},
	"traps.max_url_length":          2048,
	"traps.max_repeated_segments":   3,
	"traps.max_pages_per_host":      100000,
	"traps.max_query_params":        16,
	"traps.max_param_repeats":       3,
	"traps.max_query_length":        1024,
	"traps.refuse_session_ids":      true,
	"traps.max_days_ahead":          366,
	"traps.calendar_days":           366,
	"traps.max_per_date_pattern":    500,
	"politeness.default_delay":      "1s",
	"politeness.max_delay":          "60s",
	"politeness.max_retries":        3,
	"politeness.backoff_base":       "5s",
	"politeness.backoff_max":        "10m",
	"politeness.max_retry_after":    "1h",
	"politeness.robots_retries":     3,
	"politeness.robots_retry_delay": "15s",
	"politeness.allow_fast":         false,
	"politeness.ip_max_in_flight":   4,
	"politeness.ip_delay":           "0s",
	"politeness.latency_factor":     10.0,
	"politeness.error_backoff":      true,
	"limits.max_links_per_page":     10000,
	"sitemaps":                      false,
	"sitemap_fetches_per_host":      100,
	"network.allow_private":         false,
	"network.connect_timeout":       "10s",
	"network.header_timeout":        "20s",
	"network.timeout":               "60s",
	"network.max_body":              10 << 20,
	"network.idle_connections":      fetch.DefaultIdleConns,
	"network.dns_ttl":               "1m",
	"storage.store_bodies":          true,
	"log.level":                     "info",
	"log.format":                    "text",
	"daemon.shutdown_timeout":       "5s",
	"daemon.recrawl_interval":       "0s",
	"daemon.recrawl_policy":         "fixed",
	"daemon.recrawl_min":            "1h",
	"daemon.recrawl_max":            "720h",
	"daemon.recrawl_share":          freshness.DefaultShare,
	"http.listen":                   "",
	"http.token":                    "",
}

var agentName = regexp.MustCompile(`^[A-Za-z_-]+$`)

// loadConfig reads the config file (may be "" for defaults only), then
// POLITECRAWL_* environment variables, then the flags that were set.
// An error names where the wrong value came from: the file, a flag or an
// environment variable (see sources).
func loadConfig(path string, flags *pflag.FlagSet, binds map[string]string) (*Config, error) {
	src := newSources(path, flags, binds)
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix("POLITECRAWL")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	for key, flag := range binds {
		if f := flags.Lookup(flag); f != nil && f.Changed {
			if err := v.BindPFlag(key, f); err != nil {
				return nil, err
			}
		}
	}
	if path != "" {
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, usagef("config %s: %v", path, err)
		}
	}
	// The values are checked first, each against its key's type, and
	// said of their source: the decoder's own messages name Go types.
	if err := src.blame(append(append(src.envProblems(), src.fileProblems(v)...), durationsHaveUnits(v)...)); err != nil {
		return nil, usagef("%w", err)
	}
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return nil, usagef("config %s: %v", path, unknownKeys(err))
	}
	c.file = readScopeFile(path)
	c.unknownEnv = unknownVariables()
	if err := src.blame(c.problems()); err != nil {
		return nil, usagef("%w", err)
	}
	c.State = resolveState(c.State, path, v.InConfig("state") && !flagChanged(flags, "state") && os.Getenv("POLITECRAWL_STATE") == "")
	if c.WARC.Dir != "" {
		c.WARC.Dir = resolveState(c.WARC.Dir, path, v.InConfig("warc.dir") && os.Getenv("POLITECRAWL_WARC_DIR") == "")
	}
	return &c, nil
}

// maxLatencyFactor bounds politeness.latency_factor: past it, a server
// answering in 60 ms is already at max_delay's default.
const maxLatencyFactor = 1000

// minDelay is the politeness floor: a default_delay below it is refused
// unless politeness.allow_fast says the operator means it.
const minDelay = 100 * time.Millisecond

// durationKeys lists the config keys of type time.Duration.
var durationKeys = func() []string {
	var keys []string
	for key, t := range keyTypes {
		if t == reflect.TypeFor[time.Duration]() {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}()

// durationsHaveUnits refuses a duration written as a bare number: YAML
// reads `default_delay: 2` as the integer 2, which would otherwise become
// 2 ns and hammer the site. 0 alone is unambiguous and allowed. (An
// environment variable's value is a string: envProblems checks it.)
func durationsHaveUnits(v *viper.Viper) []error {
	var errs []error
	for _, key := range durationKeys {
		switch n := v.Get(key).(type) {
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
			if msg := noUnit(fmt.Sprint(n)); msg != "" {
				errs = append(errs, fmt.Errorf("%s: %s", key, msg))
			}
		}
	}
	return errs
}

func flagChanged(flags *pflag.FlagSet, name string) bool {
	if flags == nil {
		return false
	}
	f := flags.Lookup(name)
	return f != nil && f.Changed
}

// resolveState makes a relative state path from the config file relative
// to the file's folder, so that `run -c /etc/x/crawl.yaml` finds the same
// state from any working directory. Paths from --state or the environment
// stay relative to the working directory, as paths on a command line do.
func resolveState(state, configPath string, fromFile bool) string {
	if !fromFile || configPath == "" || filepath.IsAbs(state) {
		return state
	}
	return filepath.Join(filepath.Dir(configPath), state)
}

// invalidKeys matches mapstructure's report of misspelt keys in one
// section (an empty section name is the top level).
var invalidKeys = regexp.MustCompile(`'([^']*)' has invalid keys: ([^\n]*)`)

// unknownKeys rewrites mapstructure's messages into one line: misspelt
// keys, each with its section (cluster.bogus), and values of the wrong
// type (naming the key).
func unknownKeys(err error) error {
	msg := err.Error()
	if m := invalidKeys.FindAllStringSubmatch(msg, -1); m != nil {
		var keys []string
		for _, sm := range m {
			for k := range strings.SplitSeq(sm[2], ",") {
				if k = strings.TrimSpace(k); sm[1] != "" {
					k = sm[1] + "." + k
				}
				keys = append(keys, k)
			}
		}
		return fmt.Errorf("unknown key(s) %s (see config.example.yaml for every key)", strings.Join(keys, ", "))
	}
	msg = strings.TrimPrefix(msg, "decoding failed due to the following error(s):")
	return errors.New(strings.Join(strings.Fields(msg), " "))
}

// Validate checks every value and names the key at fault, in one line.
func (c *Config) Validate() error {
	errs := c.problems()
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	// One line, as usage errors are.
	return errors.New(strings.Join(msgs, "; "))
}

// problems checks every value; each error starts with the key at fault.
func (c *Config) problems() []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if !agentName.MatchString(c.Agent.Name) {
		bad("agent.name", "%q must be a product token of letters, '_' and '-' only", c.Agent.Name)
	}
	if !strings.Contains(strings.ToLower(c.Agent.UserAgent), strings.ToLower(c.Agent.Name)) {
		bad("agent.user_agent", "%q must contain agent.name %q so sites can match it in robots.txt", c.Agent.UserAgent, c.Agent.Name)
	}
	if c.Agent.From != "" && !strings.Contains(c.Agent.From, "@") {
		bad("agent.from", "%q must be an e-mail address", c.Agent.From)
	}
	for i, s := range c.Seeds {
		if _, err := urlnorm.Normalise(s); err != nil {
			// The normaliser's message already names the URL.
			why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "normalise"), fmt.Sprintf(" %q", strings.TrimSpace(s)))
			bad(fmt.Sprintf("seeds[%d]", i), "%q%s", s, why)
		}
	}
	if strings.TrimSpace(c.State) == "" {
		bad("state", "must name the state file")
	}
	if c.Workers < 1 || c.Workers > 1024 {
		bad("workers", "%d must be between 1 and 1024", c.Workers)
	}
	c.boundsProblems(bad)
	if c.Politeness.DefaultDelay < minDelay && !c.Politeness.AllowFast {
		bad("politeness.default_delay", "%v is below the %v floor; set politeness.allow_fast: true if you run the sites you crawl", c.Politeness.DefaultDelay, minDelay)
	}
	if f := c.Politeness.LatencyFactor; !(f >= 0 && f <= maxLatencyFactor) {
		bad("politeness.latency_factor", "%v must be 0 (off) or a factor up to %d", f, maxLatencyFactor)
	}
	if c.Limits.MaxLinksPerPage < 1 {
		bad("limits.max_links_per_page", "%d must be at least 1", c.Limits.MaxLinksPerPage)
	}
	if c.Politeness.MaxDelay > 0 && c.Politeness.MaxDelay < c.Politeness.DefaultDelay {
		bad("politeness.max_delay", "%v is below politeness.default_delay %v", c.Politeness.MaxDelay, c.Politeness.DefaultDelay)
	}
	if c.Network.IdleConns < 0 {
		bad("network.idle_connections", "%d must be 0 (no keep-alive) or more", c.Network.IdleConns)
	}
	if c.Network.MaxBody < 1024 {
		bad("network.max_body", "%d bytes is too small (at least 1024)", c.Network.MaxBody)
	}
	if _, err := parseLevel(c.Log.Level); err != nil {
		bad("log.level", "%v", err)
	}
	if c.HTTP.Listen != "" {
		if _, _, err := net.SplitHostPort(c.HTTP.Listen); err != nil {
			bad("http.listen", "%q must be host:port, e.g. 127.0.0.1:9180 (%v)", c.HTTP.Listen, err)
		}
		tokenProblems(c.HTTP.Listen, c.HTTP.Token, bad)
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		bad("log.format", "%q must be text or json", c.Log.Format)
	}
	errs = append(errs, c.scopeProblems()...)
	errs = append(errs, c.WARC.validate()...)
	errs = append(errs, c.Policy.validate()...)
	return append(errs, c.validateCluster()...)
}

// boundsProblems reports the counts and durations out of their range.
func (c *Config) boundsProblems(bad func(key, format string, args ...any)) {
	for key, n := range map[string]int{"scope.max_depth": c.Scope.MaxDepth, "scope.max_pages": c.Scope.MaxPages,
		"traps.max_url_length": c.Traps.MaxURLLength, "traps.max_repeated_segments": c.Traps.MaxRepeatedSegments,
		"traps.max_pages_per_host": c.Traps.MaxPagesPerHost, "politeness.robots_retries": c.Politeness.RobotsRetries,
		"politeness.ip_max_in_flight": c.Politeness.IPMaxInFlight} {
		if n < 0 {
			bad(key, "%d must be 0 (no limit) or more", n)
		}
	}
	for key, n := range map[string]int{"traps.max_query_params": c.Traps.MaxQueryParams, "traps.max_param_repeats": c.Traps.MaxParamRepeats,
		"traps.max_query_length": c.Traps.MaxQueryLength, "traps.max_days_ahead": c.Traps.MaxDaysAhead,
		"traps.calendar_days": c.Traps.CalendarDays, "traps.max_per_date_pattern": c.Traps.MaxPerDatePattern} {
		if n < 0 {
			bad(key, "%d must be 0 (off) or more", n)
		}
	}
	c.freshnessProblems(bad)
	if c.SitemapFetchesPerHost < 1 {
		bad("sitemap_fetches_per_host", "%d must be at least 1", c.SitemapFetchesPerHost)
	}
	if c.Politeness.MaxRetries < 1 {
		bad("politeness.max_retries", "%d must be at least 1", c.Politeness.MaxRetries)
	}
	for key, d := range map[string]time.Duration{"politeness.default_delay": c.Politeness.DefaultDelay, "politeness.max_delay": c.Politeness.MaxDelay,
		"politeness.backoff_base": c.Politeness.BackoffBase, "politeness.backoff_max": c.Politeness.BackoffMax,
		"politeness.max_retry_after": c.Politeness.MaxRetryAfter, "politeness.robots_retry_delay": c.Politeness.RobotsRetryDelay,
		"network.connect_timeout": c.Network.ConnectTimeout, "network.header_timeout": c.Network.HeaderTimeout,
		"network.timeout": c.Network.Timeout, "daemon.shutdown_timeout": c.Daemon.ShutdownTimeout, "network.dns_ttl": c.Network.DNSTTL,
		"daemon.recrawl_interval": c.Daemon.RecrawlInterval, "politeness.ip_delay": c.Politeness.IPDelay} {
		if d < 0 {
			bad(key, "%v must not be negative", d)
		}
	}
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("%q must be debug, info, warn or error", s)
	}
	return l, nil
}

// adaptive is the adaptive delay's policy, as the engine's frontier has
// it (crawler.Config's LatencyFactor, ErrorBackoff and MaxDelay).
func (c *Config) adaptive() frontier.Adaptive {
	return frontier.Adaptive{LatencyFactor: c.Politeness.LatencyFactor, ErrorBackoff: c.Politeness.ErrorBackoff, Max: c.Politeness.MaxDelay}
}

// crawlerConfig turns the file's values into the engine's.
func (c *Config) crawlerConfig(log *slog.Logger) crawler.Config {
	return crawler.Config{
		Agent:              c.Agent.Name,
		Seeds:              c.Seeds,
		Scope:              c.Scope.Hosts,
		Rules:              c.scopeRules(),
		Hosts:              c.file.overrides,
		Workers:            c.Workers,
		Limits:             c.limits(),
		DefaultDelay:       c.Politeness.DefaultDelay,
		IPMaxInFlight:      c.Politeness.IPMaxInFlight,
		IPDelay:            c.Politeness.IPDelay,
		MaxDelay:           c.Politeness.MaxDelay,
		LatencyFactor:      c.Politeness.LatencyFactor,
		ErrorBackoff:       c.Politeness.ErrorBackoff,
		DNSTTL:             c.Network.DNSTTL,
		Sitemaps:           c.Sitemaps,
		MaxSitemapsPerHost: c.SitemapFetchesPerHost,
		Fetch: fetch.Options{UserAgent: c.Agent.UserAgent, From: c.Agent.From,
			ConnectTimeout: c.Network.ConnectTimeout, HeaderTimeout: c.Network.HeaderTimeout,
			Timeout: c.Network.Timeout, MaxBody: c.Network.MaxBody, AllowPrivate: c.Network.AllowPrivate,
			IdleConns: fitIdleConns(c.Network.IdleConns, c.Workers, log), AcceptTypes: c.Scope.AcceptTypes},
		MaxRetries:      c.Politeness.MaxRetries,
		BackoffBase:     c.Politeness.BackoffBase,
		BackoffMax:      c.Politeness.BackoffMax,
		MaxHold:         c.Politeness.MaxRetryAfter,
		RobotsRetries:   robotsRetries(c.Politeness.RobotsRetries),
		RobotsRetryBase: c.Politeness.RobotsRetryDelay,
		MaxLinksPerPage: c.Limits.MaxLinksPerPage,
		ShutdownGrace:   c.Daemon.ShutdownTimeout,
		Recrawl:         c.Daemon.RecrawlInterval,
		Freshness:       c.freshnessPolicy(),
		StoreBodies:     c.Storage.StoreBodies,
		Purpose:         c.Policy.Purpose,
		Logger:          log,
	}
}

// limits turns scope.max_* and traps.* into the frontier's limits.
func (c *Config) limits() frontier.Limits {
	t := c.Traps
	return frontier.Limits{MaxDepth: c.Scope.MaxDepth, MaxPages: c.Scope.MaxPages,
		MaxPagesPerHost: t.MaxPagesPerHost, MaxURLLength: t.MaxURLLength, MaxRepeatedSegments: t.MaxRepeatedSegments,
		MaxQueryParams: t.MaxQueryParams, MaxParamRepeats: t.MaxParamRepeats, MaxQueryLength: t.MaxQueryLength,
		RefuseSessionIDs: t.RefuseSessionIDs, MaxDaysAhead: t.MaxDaysAhead, CalendarDays: t.CalendarDays,
		MaxPerDateShape: t.MaxPerDatePattern}
}

// robotsRetries maps the config's 0 ("no retries") onto the engine, where
// 0 means the default.
func robotsRetries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
