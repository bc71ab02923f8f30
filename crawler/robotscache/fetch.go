package robotscache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/robots"
)

// MaxRedirects is how many redirect hops a robots.txt fetch follows (RFC
// 9309 section 2.3.1.2: at least five).
const MaxRedirects = 5

// Outcome is what a robots.txt fetch means for the origin.
type Outcome int

const (
	// Parsed: a 2xx response whose body holds the rules.
	Parsed Outcome = iota + 1
	// Unavailable: 4xx (not 429) or too many redirects; no restrictions.
	Unavailable
	// Unreachable: 429, 5xx or a network error; everything disallowed.
	Unreachable
)

func (o Outcome) String() string {
	switch o {
	case Parsed:
		return "parsed"
	case Unavailable:
		return "unavailable"
	case Unreachable:
		return "unreachable"
	}
	return "unknown"
}

// Doer sends one HTTP request without following redirects, and tells the
// time by its clock (a Retry-After date is read against it): the cache
// never reads the system clock, so tests can inject theirs.
// fetch.Fetcher is one; Client makes one of an *http.Client.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
	Now() time.Time
}

// Client is a Doer made of an *http.Client (which must not follow
// redirects) and a clock.
type Client struct {
	HTTP  *http.Client
	Clock func() time.Time
}

// Do sends req with c.HTTP.
func (c Client) Do(req *http.Request) (*http.Response, error) { return c.HTTP.Do(req) }

// Now is c.Clock's time (the system's if Clock is nil).
func (c Client) Now() time.Time {
	if c.Clock == nil {
		return time.Now()
	}
	return c.Clock()
}

// Result is one robots.txt fetch, redirects included.
type Result struct {
	Outcome  Outcome
	URL      string         // the robots.txt URL asked for
	FinalURL string         // where the last hop went
	Status   int            // last HTTP status; 0 on a network error
	Hops     int            // redirects followed
	Robots   *robots.Robots // the rules that apply: parsed, allow-all or disallow-all
	Body     []byte         // the body used (Parsed only)
	Err      error          // the network or body error, if any
	// RetryAfter is the server's Retry-After on a 429 or 503, zero if none.
	RetryAfter time.Duration
	// MaxAge is the Cache-Control max-age of a parsed file, zero if none.
	MaxAge time.Duration
}

// Reason says in words what happened, for logs and the CLI.
func (r Result) Reason() string {
	var b strings.Builder
	switch {
	case errors.Is(r.Err, fetch.ErrPrivateAddress):
		// Our own configuration refused it: nothing was requested, and
		// nothing is unreachable.
		return r.Err.Error()
	case r.Err != nil:
		fmt.Fprintf(&b, "error: %v", r.Err)
	case r.Status != 0:
		fmt.Fprintf(&b, "HTTP %d", r.Status)
	}
	if r.Hops > 0 {
		fmt.Fprintf(&b, " after %d redirect(s) to %s", r.Hops, r.FinalURL)
	}
	switch r.Outcome {
	case Parsed:
		b.WriteString(": rules parsed")
	case Unavailable:
		b.WriteString(": no usable robots.txt, everything allowed")
	case Unreachable:
		b.WriteString(": robots.txt unreachable, everything disallowed until it can be fetched")
	}
	return b.String()
}

var (
	allowAll    = robots.Parse(nil)
	disallowAll = robots.Parse([]byte("User-agent: *\nDisallow: /\n"))
)

// AllowAll and DisallowAll are the policies of the Unavailable and
// Unreachable outcomes.
func AllowAll() *robots.Robots    { return allowAll }
func DisallowAll() *robots.Robots { return disallowAll }

// Fetch gets robotsURL with an unconditional GET, following up to
// MaxRedirects redirects, and maps the result to an Outcome. It never
// returns an error: failures are outcomes (Unreachable) with Err set. The
// crawler drives the hops itself with Step, so that each hop passes its own
// host's politeness; Fetch is for one-off use such as the CLI.
func Fetch(ctx context.Context, client Doer, robotsURL, userAgent string) Result {
	res := Result{URL: robotsURL, FinalURL: robotsURL}
	target := robotsURL
	for {
		next := Step(ctx, client, target, userAgent, &res)
		if next == "" {
			return res
		}
		if !Hop(&res, next) {
			return res
		}
		target = next
	}
}

// Step sends one request of a robots.txt fetch to target and fills res.
// It returns the next URL when the answer is a redirect to follow;
// otherwise res holds the final outcome. Call Hop before the next Step.
func Step(ctx context.Context, client Doer, target, userAgent string, res *Result) (next string) {
	resp, err := get(ctx, client, target, userAgent)
	if err != nil {
		*res = unreachable(*res, 0, err)
		return ""
	}
	res.Status, res.FinalURL = resp.StatusCode, target
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		*res = parsed(*res, resp)
	case code >= 300 && code < 400:
		drain(resp)
		if next, ok := location(resp, target); ok {
			return next
		}
		res.Outcome, res.Robots = Unavailable, allowAll
	case code == http.StatusTooManyRequests || code >= 500 && code < 600:
		res.RetryAfter = RetryAfter(resp.Header.Get("Retry-After"), client.Now())
		drain(resp)
		*res = unreachable(*res, code, nil)
	case code >= 400 && code < 500:
		drain(resp)
		res.Outcome, res.Robots = Unavailable, allowAll
	default:
		drain(resp)
		*res = unreachable(*res, code, fmt.Errorf("unexpected status %d", code))
	}
	return ""
}

// Hop records one redirect to next. It returns false, with res set to the
// Unavailable outcome, when that would pass MaxRedirects.
func Hop(res *Result, next string) bool {
	if res.Hops >= MaxRedirects {
		res.Outcome, res.Robots = Unavailable, allowAll
		return false
	}
	res.Hops++
	res.FinalURL = next
	return true
}

func get(ctx context.Context, client Doer, target, userAgent string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("robots.txt request %q: %w", target, err)
	}
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	return client.Do(req)
}

func parsed(res Result, resp *http.Response) Result {
	defer drain(resp)
	// One byte past the limit tells Parse the body was cut, so it drops
	// the partial last line.
	body, err := io.ReadAll(io.LimitReader(resp.Body, robots.MaxSize+1))
	if err != nil {
		// A truncated or broken body is a network failure (SPEC 1.2).
		return unreachable(res, res.Status, fmt.Errorf("read robots.txt body: %w", err))
	}
	res.Outcome, res.Body, res.Robots = Parsed, body, robots.Parse(body)
	res.MaxAge = MaxAge(resp.Header.Get("Cache-Control"))
	return res
}

func unreachable(res Result, status int, err error) Result {
	res.Outcome, res.Robots, res.Err = Unreachable, disallowAll, err
	if status != 0 {
		res.Status = status
	}
	return res
}

// drain discards a little of what is left of a body, so the connection can
// be reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

func location(resp *http.Response, base string) (string, bool) {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", false
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	u, err := b.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}

// RetryAfter reads a Retry-After value: delay-seconds or an HTTP-date
// (a date in the past means 0). Invalid values give 0.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, int64(365*24*3600))) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0
	}
	return t.Sub(now)
}

// MaxAge reads max-age from a Cache-Control header, zero if absent (the
// crawl keeps tdmrep.json by the same rule as robots.txt).
func MaxAge(cc string) time.Duration {
	for _, part := range strings.Split(cc, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "max-age") {
			continue
		}
		n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(v), `"`), 10, 64)
		if err == nil && n >= 0 {
			return time.Duration(min(n, int64(365*24*3600))) * time.Second
		}
	}
	return 0
}
