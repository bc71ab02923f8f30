package extract

import (
	"net/http"
	"strings"
)

// Directives are the robots directives that apply to a page.
type Directives struct {
	NoIndex   bool
	NoFollow  bool
	NoArchive bool
	NoSnippet bool
	// Other keeps the remaining directives as written (lower-cased), such
	// as max-snippet:50 or unavailable_after:..., for exporters.
	Other []string
}

// merge adds o's restrictions to d.
func (d *Directives) merge(o Directives) {
	d.NoIndex = d.NoIndex || o.NoIndex
	d.NoFollow = d.NoFollow || o.NoFollow
	d.NoArchive = d.NoArchive || o.NoArchive
	d.NoSnippet = d.NoSnippet || o.NoSnippet
	d.Other = append(d.Other, o.Other...)
}

// valued are directives whose own value follows a colon; anything else
// before a colon in an X-Robots-Tag item is a user-agent token.
var valued = map[string]bool{
	"max-snippet": true, "max-image-preview": true, "max-video-preview": true, "unavailable_after": true,
}

// ParseContent reads the content of a robots meta tag or one X-Robots-Tag
// item list: tokens separated by commas (or, as is common in the wild, by
// white space), compared case-insensitively. Unknown tokens are kept in
// Other; "all" restricts nothing.
func ParseContent(content string) Directives {
	var d Directives
	for _, item := range strings.Split(content, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		if item == "" {
			continue
		}
		if name, _, ok := strings.Cut(item, ":"); ok && valued[strings.TrimSpace(name)] {
			d.Other = append(d.Other, item)
			continue
		}
		for _, tok := range strings.Fields(item) {
			d.apply(tok)
		}
	}
	return d
}

func (d *Directives) apply(tok string) {
	switch tok {
	case "noindex":
		d.NoIndex = true
	case "nofollow":
		d.NoFollow = true
	case "none":
		d.NoIndex, d.NoFollow = true, true
	case "noarchive", "nocache":
		d.NoArchive = true
	case "nosnippet":
		d.NoSnippet = true
	case "all", "index", "follow":
	default:
		d.Other = append(d.Other, tok)
	}
}

// Header reads every X-Robots-Tag header value that applies to agent: the
// ones without a user-agent prefix and the ones prefixed with agent. A
// value may switch agents part-way ("a: noindex, b: nofollow").
func Header(h http.Header, agent string) Directives {
	var d Directives
	for _, v := range h.Values("X-Robots-Tag") {
		d.merge(headerValue(v, agent))
	}
	return d
}

func headerValue(v, agent string) Directives {
	var d Directives
	applies := true
	var run []string
	flush := func() {
		if applies && len(run) > 0 {
			d.merge(ParseContent(strings.Join(run, ",")))
		}
		run = run[:0]
	}
	items := strings.Split(v, ",")
	for i := 0; i < len(items); i++ {
		item := strings.TrimSpace(items[i])
		name, rest, ok := strings.Cut(item, ":")
		name = strings.TrimSpace(name)
		if ok && !valued[strings.ToLower(name)] && isToken(name) {
			flush()
			applies = strings.EqualFold(name, agent)
			item = strings.TrimSpace(rest)
		}
		if ok && strings.EqualFold(name, "unavailable_after") {
			// Its date may hold a comma ("Fri, 25 Jun 2010"): the date runs
			// to the end of the value or the next item that is a directive.
			for i+1 < len(items) && !looksLikeDirective(items[i+1]) {
				i++
				item += "," + items[i]
			}
			item = strings.ReplaceAll(item, ",", " ")
		}
		if item != "" {
			run = append(run, item)
		}
	}
	flush()
	return d
}

func looksLikeDirective(item string) bool {
	item = strings.ToLower(strings.TrimSpace(item))
	name, _, _ := strings.Cut(item, ":")
	switch strings.TrimSpace(name) {
	case "noindex", "nofollow", "none", "all", "noarchive", "nocache", "nosnippet", "notranslate",
		"noimageindex", "indexifembedded", "max-snippet", "max-image-preview", "max-video-preview", "unavailable_after":
		return true
	}
	return strings.Contains(item, ":") && isToken(strings.TrimSpace(name))
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
