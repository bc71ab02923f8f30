package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/politecrawl/politecrawl/crawler/archive"
)

// warcConfig is the warc section of the config file.
type warcConfig struct {
	Enabled  bool   `mapstructure:"enabled"`
	Dir      string `mapstructure:"dir"`
	Prefix   string `mapstructure:"prefix"`
	MaxSize  int64  `mapstructure:"max_size"`
	Compress bool   `mapstructure:"compress"`
}

// warcDefaults are merged into defaults.
var warcDefaults = map[string]any{
	"warc.enabled":  false,
	"warc.dir":      "",
	"warc.prefix":   "",
	"warc.max_size": 1 << 30,
	"warc.compress": true,
}

func init() {
	for k, v := range warcDefaults {
		defaults[k] = v
	}
}

func (w warcConfig) validate() []error {
	var errs []error
	if w.MaxSize < 1<<20 {
		errs = append(errs, fmt.Errorf("warc.max_size: %d bytes is too small (at least 1048576)", w.MaxSize))
	}
	if w.Prefix != "" && strings.ContainsAny(w.Prefix, "/\\ ") {
		errs = append(errs, fmt.Errorf("warc.prefix: %q must not hold '/', '\\' or spaces (it starts file names)", w.Prefix))
	}
	return errs
}

// warcDir is warc.dir (a relative path in the config file is taken from
// the file's folder, as state is), or "warc" beside the state file.
func (c *Config) warcDir() string {
	if c.WARC.Dir != "" {
		return c.WARC.Dir
	}
	return filepath.Join(filepath.Dir(c.State), "warc")
}

// openArchive opens the WARC writer the config asks for (nil when
// warc.enabled is false), recovering files a killed run left open.
func (c *Config) openArchive(log *slog.Logger) (*archive.Writer, error) {
	if !c.WARC.Enabled {
		return nil, nil
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	prefix := c.WARC.Prefix
	if prefix == "" {
		prefix = c.Agent.Name
	}
	info := []archive.Field{
		{Name: "software", Value: "politecrawl/" + versionString()},
		{Name: "hostname", Value: host},
		{Name: "operator", Value: c.Agent.From},
		{Name: "robots", Value: "obey"},
		{Name: "http-header-user-agent", Value: c.Agent.UserAgent},
		{Name: "http-header-from", Value: c.Agent.From},
		{Name: "description", Value: fmt.Sprintf("politeness: default_delay %v, max_delay %v (robots.txt Crawl-delay and Request-rate honoured up to it), one request at a time per host",
			c.Politeness.DefaultDelay, c.Politeness.MaxDelay)},
	}
	w, err := archive.Open(archive.Options{Dir: c.warcDir(), Prefix: prefix, MaxSize: c.WARC.MaxSize,
		Compress: c.WARC.Compress, Hostname: host, Info: info, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	return w, nil
}
