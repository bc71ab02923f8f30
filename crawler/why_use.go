package crawler

import (
	"fmt"

	"github.com/politecrawl/politecrawl/frontier/urlnorm"
	"github.com/politecrawl/politecrawl/storage"
)

// contentUseSays explains whether the site's content-use signals known
// before a request (its robots.txt lines and tdmrep.json) refuse the
// declared purpose for n, and the reason a refusal records ("" when none
// does). It asks refusePage, as admission and dispatch do, so why cannot
// disagree with the crawl.
func (c *explainer) contentUseSays(n string) (says, refused string) {
	o := c.rules.robots.Lookup(urlnorm.Origin(n))
	if o == nil || o.Rules() == nil {
		return "not known yet (robots.txt not fetched for this origin)", ""
	}
	if _, ok := c.rules.disallowed(o, n); !ok {
		return "not asked: robots.txt disallows it", ""
	}
	if v := c.rules.refusePage(o, n); v.State != "" {
		return v.Reason, v.Reason
	}
	return fmt.Sprintf("no signal of robots.txt or tdmrep.json refuses purpose %s (the page's own headers and meta tags are read when it is fetched)", c.cfg.Purpose), ""
}

// notStoredWhy is ": " and the reason a fetched record was not stored (a
// content-use refusal), or "".
func notStoredWhy(r *storage.URLRecord) string {
	if isNotStored(r.Error) {
		return ": " + r.Error
	}
	return ""
}
