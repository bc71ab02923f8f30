package cluster

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// The crawl's shared state in JetStream, besides the leases:
//
//	politecrawl_<crawl>_handoff  stream: one message per undecided URL,
//	                             on the subject of its host's shard
//	politecrawl_<crawl>_records  KV: URL hash -> the decided URL's record
//	                             (JSON, as the export writes it); the
//	                             crawl-wide "decided once" set
//	politecrawl_<crawl>_hosts    KV: <shard>.<host hash> -> host timing
//	                             (last request, interval, hold, what the
//	                             adaptive delay learnt, the last answer's
//	                             status), what a shard's next owner waits
//	                             on and continues from
//	politecrawl_<crawl>_robots   KV: <shard>.<origin hash> -> robots.txt
//	                             as last read, which the next owner
//	                             uses instead of fetching it again

// RecordsBucket names the crawl's decided-records bucket.
func RecordsBucket(crawl string) string { return "politecrawl_" + crawl + "_records" }

// RobotsBucket names the crawl's robots.txt bucket.
func RobotsBucket(crawl string) string { return "politecrawl_" + crawl + "_robots" }

// robotsEntry is an origin's robots.txt in the robots bucket (without its
// last good copy, which is the body itself when the file parsed).
type robotsEntry struct {
	Origin string                `json:"origin"`
	Record *storage.RobotsRecord `json:"record"`
}

// maxRobotsEntry bounds what goes to the bucket: NATS refuses messages
// over its max_payload (1 MiB by default); a bigger file is fetched again
// by the next owner.
const maxRobotsEntry = 900 << 10

// HostsBucket names the crawl's host-timing bucket.
func HostsBucket(crawl string) string { return "politecrawl_" + crawl + "_hosts" }

// urlKey is a URL's key in the records bucket (KV keys allow few
// characters, and URLs may be long).
func urlKey(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:20])
}

// hostKey is a host's key in the hosts bucket: its shard first, so that a
// new owner reads its shard's hosts with one filter.
func hostKey(shard int, host string) string {
	sum := sha256.Sum256([]byte(host))
	return fmt.Sprintf("%d.%s", shard, hex.EncodeToString(sum[:12]))
}

// wireURL is a handed-off URL: a frontier.Candidate.
type wireURL struct {
	URL       string    `json:"u"`
	Depth     int       `json:"d,omitempty"`
	Via       string    `json:"v,omitempty"`
	Parent    string    `json:"p,omitempty"`
	Redirects int       `json:"r,omitempty"`
	Lastmod   time.Time `json:"m,omitzero"`
}

func toWire(c frontier.Candidate) wireURL {
	return wireURL{URL: c.URL, Depth: c.Depth, Via: c.Via, Parent: c.Parent, Redirects: c.Redirects, Lastmod: c.Lastmod}
}

func (w wireURL) candidate() frontier.Candidate {
	return frontier.Candidate{URL: w.URL, Depth: w.Depth, Via: w.Via, Parent: w.Parent, Redirects: w.Redirects, Lastmod: w.Lastmod}
}

// decodeWire reads a handed-off URL; a message that is not one (garbage on
// the subject) is an error, and its URL must be a normal http(s) URL.
func decodeWire(b []byte) (wireURL, error) {
	var w wireURL
	if err := json.Unmarshal(b, &w); err != nil {
		return w, fmt.Errorf("handoff message: %w", err)
	}
	n, err := urlnorm.Normalise(w.URL)
	if err != nil {
		return w, fmt.Errorf("handoff message: %w", err)
	}
	w.URL = n
	return w, nil
}

// hostTiming is a host's entry in the hosts bucket. Interval is the
// host's floor (robots.txt, the configuration); TTFBMs and ErrorDelayS are
// what the adaptive delay learnt of its server, as in its host record,
// which raise the delay in force above the floor. LastStatus is the HTTP
// status of the host's last answer to a page request, which status shows
// on the new owner until the host answers it. Nodes from before they were
// kept wrote none of these, and they are omitted when zero.
type hostTiming struct {
	Host        string    `json:"host"`
	LastRequest time.Time `json:"last_request,omitzero"`
	Interval    float64   `json:"interval_s,omitempty"`
	HoldUntil   time.Time `json:"hold_until,omitzero"`
	TTFBMs      float64   `json:"ttfb_ms,omitempty"`
	ErrorDelayS float64   `json:"error_delay_s,omitempty"`
	LastStatus  int       `json:"last_status,omitempty"`
}

// earliest is the first instant a new owner that took the shard at
// acquired may send host a request. The lease gap already separates it
// from the last owner's requests when that owner died; when it handed the
// shard over, its last request may be recent, so a full delay from the
// take-over is kept in every case (and the host's hold, if longer). The
// delay is the one in force on the previous owner: the host's floor, never
// less than floor, raised by what p, the adaptive delay's policy, makes of
// what it learnt of the server, so a server that was answering slowly or
// failing is not asked sooner because its shard moved.
func (h hostTiming) earliest(acquired time.Time, floor time.Duration, p frontier.Adaptive) time.Time {
	d := p.InForce(floor, h.record())
	t := acquired.Add(d)
	if next := h.LastRequest.Add(d); next.After(t) {
		t = next
	}
	if h.HoldUntil.After(t) {
		t = h.HoldUntil
	}
	return t
}

func timingOf(host string, r storage.HostRecord) hostTiming {
	return hostTiming{Host: host, LastRequest: r.LastRequest, Interval: r.Interval, HoldUntil: r.HoldUntil,
		TTFBMs: r.TTFBMs, ErrorDelayS: r.ErrorDelayS, LastStatus: r.LastStatus}
}

// record is the part of a host record the entry carries.
func (h hostTiming) record() storage.HostRecord {
	return storage.HostRecord{LastRequest: h.LastRequest, Interval: h.Interval, HoldUntil: h.HoldUntil,
		TTFBMs: h.TTFBMs, ErrorDelayS: h.ErrorDelayS, LastStatus: h.LastStatus}
}

// learnt reports whether the entry carries what the previous owner learnt
// of the host's server: the adaptive delay's state, its last answer's
// status.
func (h hostTiming) learnt() bool { return h.TTFBMs != 0 || h.ErrorDelayS != 0 || h.LastStatus != 0 }

// crawlBuckets opens (creating if missing) the records, hosts and robots
// buckets; a client's open leaves existing ones as the nodes set them.
func crawlBuckets(ctx context.Context, js jetstream.JetStream, crawl string, replicas int, client bool) (records, hosts, robots jetstream.KeyValue, err error) {
	open := func(name, desc string) (jetstream.KeyValue, error) {
		kv, err := openKeyValue(ctx, js, modeFor(client), jetstream.KeyValueConfig{
			Bucket: name, Description: desc, Storage: jetstream.FileStorage, Replicas: max(replicas, 1),
		})
		if err != nil {
			return nil, fmt.Errorf("bucket %s: %w", name, err)
		}
		return kv, nil
	}
	if records, err = open(RecordsBucket(crawl), "politecrawl: decided URLs"); err != nil {
		return nil, nil, nil, err
	}
	if hosts, err = open(HostsBucket(crawl), "politecrawl: host timing by shard"); err != nil {
		return nil, nil, nil, err
	}
	if robots, err = open(RobotsBucket(crawl), "politecrawl: robots.txt by shard"); err != nil {
		return nil, nil, nil, err
	}
	return records, hosts, robots, nil
}

// isNotFound reports a KV miss.
func isNotFound(err error) bool { return errors.Is(err, jetstream.ErrKeyNotFound) }

// Records over compressAbove bytes of JSON are stored gzip-compressed (a
// page's 10,000 links can pass NATS's 1 MiB message limit); a record still
// over maxRecordEntry compressed is refused with errRecordTooBig.
const (
	compressAbove  = 64 << 10
	maxRecordEntry = 900 << 10
	maxRecordJSON  = 64 << 20 // what a compressed record may expand to
)

var errRecordTooBig = errors.New("record too big for the records bucket")

// encodeRecord is a record's value in the records bucket: its export JSON,
// gzip-compressed when big.
func encodeRecord(r *storage.URLRecord) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil || len(b) <= compressAbove {
		return b, err
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if z.Len() > maxRecordEntry {
		return nil, errRecordTooBig
	}
	return z.Bytes(), nil
}

// decodeRecordValue returns a records-bucket value as JSON (a JSON value
// starts with '{'; a compressed one with gzip's magic), expanding at most
// maxRecordJSON bytes.
func decodeRecordValue(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("compressed record: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxRecordJSON+1))
	if err != nil {
		return nil, fmt.Errorf("compressed record: %w", err)
	}
	if len(out) > maxRecordJSON {
		return nil, fmt.Errorf("compressed record: expands past %d bytes", maxRecordJSON)
	}
	return out, nil
}
