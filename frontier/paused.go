package frontier

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/politecrawl/politecrawl/storage"
)

// Held is the work a crawl keeps for the hosts the operator paused
// (PauseHost, PauseRecorded): the URLs queued on them, which get no
// request until their host is resumed. Other work of a paused host (a
// sitemap not read yet, a robots.txt redirect through it) waits too: its
// host is named in Hosts, though what that work would queue is not known
// yet, so it adds nothing to URLs.
//
// A run without a recrawl schedule ends once nothing but held work is
// left, and says what it holds (the crawler's "drained" line). It does not
// wait for a resume, although every run serves a control socket one could
// come through: waiting would make each one-shot run with a paused host a
// run that never ends on its own, which a script or a cron job cannot tell
// from a stuck crawl; and a pause is the operator's decision to leave the
// host alone, not work the run failed to do. A stopped crawl's host is
// resumed without a running crawl (PauseRecorded, `politecrawl host
// resume`), and the next run fetches what was held.
type Held struct {
	URLs  int      // queued on paused hosts
	Hosts []string // the paused hosts with work waiting, sorted
}

// Any reports whether paused hosts hold any work.
func (h Held) Any() bool { return len(h.Hosts) > 0 }

// heldNames is how many hosts Held's log lines name.
const heldNames = 5

// Held is the work the running crawl holds for paused hosts.
func (f *Frontier[H]) Held() Held {
	var held Held
	for name, h := range f.sched.hosts {
		if h.stopped && (h.queued > 0 || h.other) {
			held.URLs += h.queued
			held.Hosts = append(held.Hosts, name)
		}
	}
	slices.Sort(held.Hosts)
	return held
}

// ReadHeld is Held read from a state file no crawl runs on: the paused
// host records, their queue counts and their sitemaps not read yet, as
// committed.
func ReadHeld(tx *storage.Tx) (Held, error) {
	var held Held
	if !tx.Initialised() {
		return held, nil
	}
	waiting := map[string]bool{} // paused hosts with work
	checked := map[string]bool{} // hosts whose record the sitemaps' pass read
	err := tx.QueuedHosts(func(host string, n int) error {
		r, err := tx.GetHost(host)
		if err != nil {
			return err
		}
		if r.Paused {
			held.URLs += n
			waiting[host] = true
		}
		return nil
	})
	if err == nil {
		err = tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
			if r.State != SitemapPending || checked[r.Host] || waiting[r.Host] {
				return nil
			}
			checked[r.Host] = true
			h, err := tx.GetHost(r.Host)
			if err == nil && h.Paused {
				waiting[r.Host] = true
			}
			return err
		})
	}
	if err != nil {
		return Held{}, fmt.Errorf("read paused hosts: %w", err)
	}
	for host := range waiting {
		held.Hosts = append(held.Hosts, host)
	}
	slices.Sort(held.Hosts)
	return held, nil
}

// Names lists the first n hosts, and how many more there are.
func (h Held) Names(n int) string {
	if len(h.Hosts) <= n {
		return strings.Join(h.Hosts, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(h.Hosts[:n], ", "), len(h.Hosts)-n)
}

// LogAttrs are the key-value pairs a log line says h with: held_urls,
// paused_hosts (their number), hosts (the first few) and, when resume is
// the command that resumes a host (its host arguments left out), resume:
// that command with the hosts, or HOST... when there are too many to
// name.
func (h Held) LogAttrs(resume string) []any {
	out := []any{"held_urls", h.URLs, "paused_hosts", len(h.Hosts), "hosts", h.Names(heldNames)}
	if resume == "" {
		return out
	}
	args := "HOST..."
	if len(h.Hosts) <= heldNames {
		args = strings.Join(h.Hosts, " ")
	}
	return append(out, "resume", resume+" "+args)
}

// PauseRecorded pauses (pause true) or resumes host in the state file of
// a crawl that is not running, for its next run: the offline PauseHost.
// It reports whether the crawl knows host (it has a host record, queued
// URLs or recorded ones); an unknown host is left alone. Do not call it
// on the file of a running crawl: its frontier would write its own
// record over this one.
func PauseRecorded(tx *storage.Tx, host string, pause bool) (bool, error) {
	if !tx.Initialised() {
		return false, nil
	}
	_, _, queued := tx.Head(host)
	if !tx.HasHost(host) && !queued && tx.HostStates(host) == (storage.StateCounts{}) && !hasSitemap(tx, host) {
		return false, nil
	}
	r, err := tx.GetHost(host)
	if err != nil {
		return true, fmt.Errorf("pause host %q: %w", host, err)
	}
	r.Paused = pause
	if err := tx.PutHost(host, r); err != nil {
		return true, fmt.Errorf("pause host %q: %w", host, err)
	}
	return true, nil
}

// hasSitemap reports whether the crawl keeps a sitemap file on host: a
// host met only through another's robots.txt has no record until its
// first answer, and a running crawl knows it all the same.
func hasSitemap(tx *storage.Tx, host string) bool {
	found := false
	tx.ForEachSitemap(func(r *storage.SitemapRecord) error {
		if r.Host == host {
			found = true
			return errStopScan
		}
		return nil
	})
	return found
}

// errStopScan ends a scan early.
var errStopScan = errors.New("stop")
