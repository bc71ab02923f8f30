package robots

// field is the kind of record a line holds.
type field uint8

const (
	fieldUnknown field = iota
	fieldUserAgent
	fieldAllow
	fieldDisallow
	fieldSitemap
	fieldCrawlDelay
	fieldRequestRate
	fieldContentUsage  // draft-ietf-aipref-attach
	fieldContentSignal // Cloudflare's Content Signals
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
	{"content-usage", fieldContentUsage},
	{"content-signal", fieldContentSignal},
}

func parseField(key []byte) field {
	for _, n := range fieldNames {
		if hasPrefixFold(key, n.prefix) {
			return n.f
		}
	}
	return fieldUnknown
}

// hasPrefixFold reports whether b starts with the lower-case ASCII prefix,
// ignoring ASCII case. (Unicode folding could add nothing: the only
// non-ASCII runes that fold to ASCII letters take more bytes than they
// match.)
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(b[i]) != prefix[i] {
			return false
		}
	}
	return true
}
