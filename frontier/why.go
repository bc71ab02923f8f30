package frontier

import (
	"fmt"
	"strings"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// Guards says what the limits and trap guards would make of a normal URL
// found at depth from parent, were it found now: "" when none refuses
// it, else the reason it would be recorded skipped with. It changes
// nothing.
func (f *Frontier[H]) Guards(tx *storage.Tx, url string, depth int, parent string) string {
	_, reason := f.admit.refuse(tx, Candidate{URL: url, Depth: depth, Parent: parent}, urlnorm.Authority(url))
	return reason
}

// OverrideSays describes the hosts: override that applies to host, and
// host's spacing now, in one line.
func (f *Frontier[H]) OverrideSays(host string) string {
	o, ok := f.hosts.For(host)
	interval := f.sched.Interval(host)
	if !ok {
		if interval > 0 {
			return fmt.Sprintf("none (spacing now %v)", interval)
		}
		return "none"
	}
	var parts []string
	if o.MinDelay > 0 {
		parts = append(parts, fmt.Sprintf("min_delay %v", o.MinDelay))
	}
	if o.MaxPages > 0 {
		parts = append(parts, fmt.Sprintf("max_pages %d", o.MaxPages))
	}
	if o.StoreBodies != nil {
		parts = append(parts, fmt.Sprintf("store_bodies %v", *o.StoreBodies))
	}
	if o.WARC != nil {
		parts = append(parts, fmt.Sprintf("warc %v", *o.WARC))
	}
	s := o.Key
	if o.Where != "" {
		s += " (" + o.Where + ")"
	}
	s += ": " + strings.Join(parts, ", ")
	if interval > 0 {
		s += fmt.Sprintf("; spacing now %v (robots.txt wins when slower)", interval)
	}
	return s
}
