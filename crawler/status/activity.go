package status

import (
	"strconv"
	"time"
)

// Activity is what a running crawl did lately: fetches and bytes per
// BucketWidth over the last History, the status codes of its answers and
// its last errors. The crawl's coordinator feeds it; not safe for
// concurrent use. It is not persisted: it starts empty with each run.
type Activity struct {
	buckets [nBuckets]bucket
	codes   map[int]int
	errors  []Error // a ring of the last maxErrors, next at errNext
	errNext int
}

// BucketWidth and History shape Activity's series.
const (
	BucketWidth = 30 * time.Second
	History     = time.Hour
	nBuckets    = int(History / BucketWidth)
	maxErrors   = 20
)

type bucket struct {
	slot         int64 // start / BucketWidth; a stale slot is empty
	pages, bytes int64
}

// Error is one failed request.
type Error struct {
	At    time.Time `json:"at"`
	URL   string    `json:"url"`
	Error string    `json:"error"`
}

// Point is one bucket of ActivityView.Series.
type Point struct {
	At    time.Time `json:"at"` // the bucket's start
	Pages int64     `json:"pages"`
	Bytes int64     `json:"bytes"`
}

// ActivityView is a copy of an Activity, as status shows it.
type ActivityView struct {
	BucketS float64        `json:"bucket_s"`
	Series  []Point        `json:"series"`       // the last hour, oldest first
	Codes   map[string]int `json:"status_codes"` // answers by HTTP status; "error" for no answer
	Errors  []Error        `json:"last_errors"`  // newest first
}

// NewActivity returns an empty Activity.
func NewActivity() *Activity { return &Activity{codes: map[int]int{}} }

// Fetch counts one answer (status 0: none, an error) and its body bytes.
func (a *Activity) Fetch(now time.Time, status, bytes int) {
	slot := now.UnixNano() / int64(BucketWidth)
	b := &a.buckets[slot%int64(nBuckets)]
	if b.slot != slot {
		*b = bucket{slot: slot}
	}
	b.pages++
	b.bytes += int64(bytes)
	a.codes[status]++
}

// Error notes a failed request (kept among the last few).
func (a *Activity) Error(now time.Time, url, why string) {
	e := Error{At: now, URL: url, Error: why}
	if len(a.errors) < maxErrors {
		a.errors = append(a.errors, e)
		return
	}
	a.errors[a.errNext] = e
	a.errNext = (a.errNext + 1) % maxErrors
}

// View copies what the last History holds at now.
func (a *Activity) View(now time.Time) *ActivityView {
	v := &ActivityView{BucketS: BucketWidth.Seconds(), Series: make([]Point, nBuckets), Codes: map[string]int{}}
	last := now.UnixNano() / int64(BucketWidth)
	for i := range nBuckets {
		slot := last - int64(nBuckets-1-i)
		p := Point{At: time.Unix(0, slot*int64(BucketWidth)).UTC()}
		if b := a.buckets[slot%int64(nBuckets)]; b.slot == slot {
			p.Pages, p.Bytes = b.pages, b.bytes
		}
		v.Series[i] = p
	}
	for code, n := range a.codes {
		k := "error"
		if code > 0 {
			k = strconv.Itoa(code)
		}
		v.Codes[k] += n
	}
	for i := range a.errors {
		// Newest first: the one before errNext, going back.
		j := (a.errNext - 1 - i + 2*len(a.errors)) % len(a.errors)
		v.Errors = append(v.Errors, a.errors[j])
	}
	return v
}
