package robots

import "bytes"

// field is the kind of record a line holds.
type field int

const (
	fieldUnknown field = iota
	fieldUserAgent
	fieldAllow
	fieldDisallow
	fieldSitemap
	fieldCrawlDelay
	fieldRequestRate
)

// fieldNames maps accepted spellings to fields. A key matches a spelling when
// it starts with it, ignoring case (Google accepts "disallowed:" as disallow).
// The misspellings are the ones Google's parser accepts; crawl-delay and
// request-rate get the same treatment for separators.
var fieldNames = []struct {
	prefix string
	f      field
}{
	{"user-agent", fieldUserAgent},
	{"useragent", fieldUserAgent},
	{"user agent", fieldUserAgent},
	{"allow", fieldAllow},
	{"disallow", fieldDisallow},
	{"dissallow", fieldDisallow},
	{"dissalow", fieldDisallow},
	{"disalow", fieldDisallow},
	{"diasllow", fieldDisallow},
	{"disallaw", fieldDisallow},
	{"sitemap", fieldSitemap},
	{"site-map", fieldSitemap},
	{"crawl-delay", fieldCrawlDelay},
	{"crawldelay", fieldCrawlDelay},
	{"crawl_delay", fieldCrawlDelay},
	{"crawl delay", fieldCrawlDelay},
	{"request-rate", fieldRequestRate},
	{"requestrate", fieldRequestRate},
	{"request_rate", fieldRequestRate},
	{"request rate", fieldRequestRate},
}

func parseField(key []byte) field {
	for _, n := range fieldNames {
		if len(key) >= len(n.prefix) && bytes.EqualFold(key[:len(n.prefix)], []byte(n.prefix)) {
			return n.f
		}
	}
	return fieldUnknown
}
