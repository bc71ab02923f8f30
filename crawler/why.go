package crawler

import (
	"context"
	"fmt"

	"github.com/politecrawl/politecrawl/crawler/groupcommit"
	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/robots"
	"github.com/politecrawl/politecrawl/storage"
)

// Why is how the crawl decided, or would decide, one URL: each step of
// the decision in the order the crawl takes them.
type Why struct {
	URL     string    `json:"url"`
	Normal  string    `json:"normal,omitempty"`
	Steps   []WhyStep `json:"steps"`
	Verdict string    `json:"verdict"`
}

// WhyStep is one step: normalise, scope, trap guard, host override,
// robots.txt, record.
type WhyStep struct {
	Step   string `json:"step"`
	Result string `json:"result"`
}

// Explain says how the running crawl decides raw, step by step.
func (c *Crawler) Explain(ctx context.Context, raw string) (Why, error) {
	var w Why
	var err error
	if e := c.do(ctx, func() { w, err = c.why.explain(raw) }); e != nil {
		return w, e
	}
	return w, err
}

// ExplainOffline is Explain for a crawl that is not running (the state
// file as the last run left it, with the config given to New). Do not
// call it while Run runs.
func (c *Crawler) ExplainOffline(raw string) (Why, error) { return c.why.explain(raw) }

// explainer answers Explain: it reads what the crawl decides a URL by
// (the frontier's scope, guards and overrides, the site's rules, the
// URL's record in the state file or the batch being built) and changes
// nothing.
type explainer struct {
	cfg     *Config
	db      *storage.DB
	front   *frontier.Frontier[task]
	commits *groupcommit.Pipeline[Event]
	rules   *siteRules
}

func (c *explainer) explain(raw string) (Why, error) {
	w := Why{URL: raw}
	add := func(step, format string, args ...any) {
		w.Steps = append(w.Steps, WhyStep{Step: step, Result: fmt.Sprintf(format, args...)})
	}
	n, err := urlnorm.Normalise(raw)
	if err != nil {
		add("normalise", "invalid: %v", err)
		w.Verdict = "never fetched: not a URL the crawl can fetch"
		return w, nil
	}
	w.Normal = n
	add("normalise", "%s", n)
	d := c.front.Decide(n)
	add("scope", "%s", d)
	var rec *storage.URLRecord
	var guard string
	view := c.db.View
	if b := c.commits.Batch(); b != nil {
		view = b.Do
	}
	err = view(func(tx *storage.Tx) error {
		var err error
		if rec, err = tx.GetURL(n); err != nil {
			return err
		}
		depth, parent := 0, ""
		if rec != nil {
			depth, parent = rec.Depth, rec.Parent
		}
		guard = c.front.Guards(tx, n, depth, parent)
		if guard == "" {
			add("trap guard", "none refuses it")
		} else {
			add("trap guard", "%s", guard)
		}
		return nil
	})
	if err != nil {
		return w, fmt.Errorf("why %s: %w", n, err)
	}
	host := urlnorm.Authority(n)
	add("host override", "%s", c.front.OverrideSays(host))
	says, refused := c.robotsSays(n)
	add("robots.txt", "%s", says)
	if c.cfg.Purpose != "" {
		says, useRefused := c.contentUseSays(n)
		add("content use", "%s", says)
		if refused == "" {
			refused = useRefused
		}
	}
	w.Verdict = verdict(d.In, guard, refused, rec)
	if rec != nil {
		add("record", "%s", RecordWhy(rec))
	} else {
		add("record", "not seen by the crawl")
	}
	return w, nil
}

// robotsSays explains what the URL's origin's robots.txt says of it, and
// the reason it refuses the URL for ("" when it does not, or is not known
// yet).
func (c *explainer) robotsSays(n string) (says, refused string) {
	o := c.rules.robots.Lookup(urlnorm.Origin(n))
	if o != nil && o.Rules() == nil && o.Outcome() == robotscache.Unreachable {
		return "unreachable at the last try (" + o.Reason() + "): asked again before the origin's next request", ""
	}
	if o == nil || o.Rules() == nil {
		return "not fetched yet for this origin (asked before the first request)", ""
	}
	if reason, ok := c.rules.disallowed(o, n); !ok {
		refused = reason
	}
	if o.Outcome() == robotscache.Unreachable {
		return "unreachable: " + o.Reason(), refused
	}
	return c.robotsRule(o.Rules(), n), refused
}

// robotsRule says which group and rule of r decide n.
func (c *explainer) robotsRule(r *robots.Robots, n string) string {
	d := r.Explain(c.cfg.Agent, n)
	group := "the group for " + c.cfg.Agent
	switch d.Scope {
	case robots.ScopeGlobal:
		group = "the * group (no group names " + c.cfg.Agent + ")"
	case robots.ScopeNone:
		return "no group applies to " + c.cfg.Agent + " and there is no * group: allowed"
	case robots.ScopeRobotsTxt:
		return "/robots.txt itself is always allowed"
	}
	verb := "allowed"
	if !d.Allowed {
		verb = "disallowed"
	}
	if d.Rule == nil {
		return fmt.Sprintf("%s: no rule of %s matches %q", verb, group, d.Path)
	}
	rule := "Disallow"
	if d.Rule.Allow {
		rule = "Allow"
	}
	return fmt.Sprintf("%s by %s: %s (line %d), in %s", verb, rule, d.Rule.Pattern, d.Rule.Line, group)
}

// verdict is the one-line answer: the record's, or what would become of
// the URL if the crawl found it now (guard and robots: the reasons a trap
// guard and robots.txt refuse it for, if they do).
// OutOfScopeVerdict is the verdict of a URL the crawl has no record of
// and its scope excludes.
const OutOfScopeVerdict = "would not be fetched: out of scope"

func verdict(in bool, guard, robots string, rec *storage.URLRecord) string {
	switch {
	case rec != nil:
		return RecordVerdict(rec)
	case !in:
		return OutOfScopeVerdict
	case guard != "":
		return "would be recorded skipped if found: " + guard
	case robots != "":
		return "would be recorded disallowed if found: " + robots
	}
	return "would be queued if found"
}

// RecordVerdict is the verdict of a URL the crawl has a record of (why's
// last line): a cluster's why gives it for the record another node wrote.
func RecordVerdict(rec *storage.URLRecord) string {
	switch rec.State {
	case storage.Queued:
		return "queued: it will be decided again when it comes up"
	case storage.Fetched:
		return "fetched" + notStoredWhy(rec)
	}
	return "not fetched: " + RecordWhy(rec)
}

// RecordWhy explains a decided record in one line: its state and the
// reason it carries (the scope rule with its config line, the trap guard,
// the robots.txt rule with its line, the refused content type). The
// export's why field.
func RecordWhy(r *storage.URLRecord) string {
	switch r.State {
	case storage.Fetched:
		if r.Status != 0 {
			return fmt.Sprintf("fetched (HTTP %d) at %s", r.Status, r.FetchedAt.UTC().Format("2006-01-02T15:04:05Z")) + notStoredWhy(r)
		}
		return "fetched" + notStoredWhy(r)
	case storage.Queued:
		return "queued"
	}
	if r.Error == "" {
		return string(r.State)
	}
	return string(r.State) + ": " + r.Error
}
