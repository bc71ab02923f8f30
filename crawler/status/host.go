package status

import (
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// HostDetail is one host's page in the console: its robots.txt files with
// the lines that apply to the crawl, its latest fetches, the head of its
// queue and the URLs it refused, with reasons. Read from the state file
// only (ReadHost): it costs a walk of the host's own records, bounded.
type HostDetail struct {
	Host    string       `json:"host"`
	Robots  []RobotsFile `json:"robots"`
	Recent  []URL        `json:"recent"`  // newest first
	Head    []string     `json:"head"`    // the next URLs of its queue
	Refused []URL        `json:"refused"` // disallowed, skipped and failed, in URL order
	// Scanned is how many of its URL records were read; Truncated says
	// the walk stopped at the bound before the end.
	Scanned   int  `json:"scanned"`
	Truncated bool `json:"truncated,omitempty"`
}

// RobotsFile is one origin's robots.txt as the state file keeps it.
type RobotsFile struct {
	Origin    string       `json:"origin"`
	Outcome   string       `json:"outcome"`
	Status    int          `json:"status,omitempty"`
	FetchedAt time.Time    `json:"fetched_at,omitzero"`
	Scope     string       `json:"scope"` // which group applies: agent, global (*) or none
	Lines     []RobotsLine `json:"lines,omitempty"`
}

// RobotsLine is one line of a robots.txt file; Applies marks the records
// of the groups the crawl obeys.
type RobotsLine struct {
	N       int    `json:"n"`
	Text    string `json:"text"`
	Applies bool   `json:"applies,omitempty"`
}

// URL is one URL record as a host's page lists it.
type URL struct {
	URL       string    `json:"url"`
	State     string    `json:"state"`
	Status    int       `json:"status,omitempty"`
	FetchedAt time.Time `json:"fetched_at,omitzero"`
	Bytes     int64     `json:"bytes,omitempty"`
	Title     string    `json:"title,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// Bounds of ReadHost.
const (
	hostScanMax    = 50_000 // URL records read at most
	hostListMax    = 50     // entries per list
	robotsLinesMax = 500    // lines of robots.txt shown
)

var errEnough = errors.New("enough")

// ReadHost reads host's page from the state file; agent is the crawl's
// robots.txt product token.
func ReadHost(db *storage.DB, host, agent string) (*HostDetail, error) {
	d := &HostDetail{Host: host, Robots: []RobotsFile{}, Recent: []URL{}, Head: []string{}, Refused: []URL{}}
	err := db.View(func(tx *storage.Tx) error {
		if !tx.Initialised() {
			return nil
		}
		for _, scheme := range []string{"http://", "https://"} {
			r, err := tx.GetRobots(scheme + host)
			if err != nil {
				return err
			}
			if r != nil {
				d.Robots = append(d.Robots, robotsFile(scheme+host, r, agent))
			}
			if err := d.scan(tx, scheme+host+"/"); err != nil {
				return err
			}
		}
		return tx.ForEachQueued(host, func(_ uint64, url string) error {
			if len(d.Head) >= hostListMax {
				return errEnough
			}
			d.Head = append(d.Head, url)
			return nil
		})
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	sort.Slice(d.Recent, func(i, j int) bool { return d.Recent[i].FetchedAt.After(d.Recent[j].FetchedAt) })
	return d, err
}

// scan reads the records under prefix: the latest fetches and the refused.
func (d *HostDetail) scan(tx *storage.Tx, prefix string) error {
	err := tx.ForEachURLWithPrefix(prefix, func(r *storage.URLRecord) error {
		if d.Scanned >= hostScanMax {
			d.Truncated = true
			return errEnough
		}
		d.Scanned++
		u := URL{URL: r.URL, State: string(r.State), Status: r.Status, FetchedAt: r.FetchedAt, Bytes: r.Bytes, Title: r.Title, Error: r.Error}
		switch r.State {
		case storage.Disallowed, storage.Skipped, storage.Failed:
			if len(d.Refused) < hostListMax {
				d.Refused = append(d.Refused, u)
			}
		}
		if !r.FetchedAt.IsZero() {
			d.keepRecent(u)
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// keepRecent keeps the hostListMax latest fetches.
func (d *HostDetail) keepRecent(u URL) {
	if len(d.Recent) < hostListMax {
		d.Recent = append(d.Recent, u)
		return
	}
	oldest := 0
	for i, r := range d.Recent {
		if r.FetchedAt.Before(d.Recent[oldest].FetchedAt) {
			oldest = i
		}
	}
	if u.FetchedAt.After(d.Recent[oldest].FetchedAt) {
		d.Recent[oldest] = u
	}
}

func robotsFile(origin string, r *storage.RobotsRecord, agent string) RobotsFile {
	f := RobotsFile{Origin: origin, Outcome: r.Outcome, Status: r.Status, FetchedAt: r.FetchedAt, Scope: robots.ScopeNone.String()}
	if len(r.Body) == 0 {
		return f
	}
	applies, scope := robots.Parse(r.Body).Lines(agent)
	f.Scope = scope.String()
	on := map[int]bool{}
	for _, n := range applies {
		on[n] = true
	}
	for i, line := range strings.Split(strings.TrimRight(string(r.Body), "\n"), "\n") {
		if i >= robotsLinesMax {
			break
		}
		f.Lines = append(f.Lines, RobotsLine{N: i + 1, Text: strings.TrimRight(line, "\r"), Applies: on[i+1]})
	}
	return f
}
