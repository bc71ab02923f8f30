package robots

import (
	"strings"
	"sync"
	"testing"
)

type allowCase struct {
	name   string
	robots string
	agent  string
	url    string
	want   bool
}

func runAllowCases(t *testing.T, cases []allowCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Parse([]byte(c.robots))
			if got := r.Allowed(c.agent, c.url); got != c.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v\nrobots.txt:\n%s", c.agent, c.url, got, c.want, c.robots)
			}
		})
	}
}

func TestGroups(t *testing.T) {
	runAllowCases(t, []allowCase{
		{"specific group beats global", "User-agent: *\nDisallow: /\nUser-agent: FooBot\nAllow: /\n", "FooBot", "/x", true},
		{"other agent gets global", "User-agent: *\nDisallow: /\nUser-agent: FooBot\nAllow: /\n", "BarBot", "/x", false},
		{"matched empty disallow allows all", "User-agent: FooBot\nDisallow:\n\nUser-agent: *\nDisallow: /\n", "FooBot", "/x", true},
		{"matched group with no rules allows all", "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\n", "FooBot", "/x", true},
		{"global never merged into specific", "User-agent: *\nDisallow: /private\nUser-agent: FooBot\nDisallow: /tmp\n", "FooBot", "/private", true},
		{"consecutive agents share rules", "User-agent: a\nUser-agent: FooBot\nDisallow: /x\n", "FooBot", "/x", false},
		{"blank line does not split agents", "User-agent: a\n\nUser-agent: FooBot\nDisallow: /x\n", "FooBot", "/x", false},
		{"sitemap line does not split agents", "User-agent: a\nSitemap: http://e/s.xml\nUser-agent: FooBot\nDisallow: /x\n", "FooBot", "/x", false},
		{"unknown line does not split agents", "User-agent: a\nFoo: bar\nUser-agent: FooBot\nDisallow: /x\n", "FooBot", "/x", false},
		{"crawl-delay does not split agents", "User-agent: a\nCrawl-delay: 3\nUser-agent: FooBot\nDisallow: /x\n", "FooBot", "/x", false},
		{"agent after rule starts new group", "User-agent: FooBot\nDisallow: /x\nUser-agent: BarBot\nDisallow: /y\n", "FooBot", "/y", true},
		{"groups for one agent are merged", "User-agent: FooBot\nDisallow: /a\n\nUser-agent: BarBot\nDisallow: /\n\nUser-agent: FooBot\nDisallow: /b\n", "FooBot", "/b", false},
		{"merged groups keep first group rules", "User-agent: FooBot\nDisallow: /a\n\nUser-agent: BarBot\nDisallow: /\n\nUser-agent: FooBot\nDisallow: /b\n", "FooBot", "/a", false},
		{"several global groups merged", "User-agent: *\nDisallow: /a\nUser-agent: x\nDisallow: /\nUser-agent: *\nDisallow: /b\n", "FooBot", "/b", false},
		{"rules before first agent ignored", "Disallow: /\nUser-agent: FooBot\nAllow: /a\n", "FooBot", "/x", true},
		{"rules before first agent do not stop the file", "Disallow: /\nUser-agent: FooBot\nDisallow: /a\n", "FooBot", "/a", false},
		{"no groups allows all", "Sitemap: http://e/s.xml\n", "FooBot", "/x", true},
		{"no matching group and no global", "User-agent: BarBot\nDisallow: /\n", "FooBot", "/x", true},
		{"empty file", "", "FooBot", "/", true},
		{"empty disallow is not a rule", "User-agent: *\nDisallow:\nDisallow: /a\n", "FooBot", "/b", true},
		{"empty allow is not a rule", "User-agent: *\nAllow:\nDisallow: /\n", "FooBot", "/b", false},
		{"empty disallow still ends agent run", "User-agent: FooBot\nDisallow:\nUser-agent: BarBot\nDisallow: /\n", "FooBot", "/x", true},
	})
}

func TestAgentMatching(t *testing.T) {
	const rb = "User-agent: *\nDisallow: /\nUser-agent: FooBot\nAllow: /\n"
	runAllowCases(t, []allowCase{
		{"exact", rb, "FooBot", "/x", true},
		{"case-insensitive caller", rb, "foobot", "/x", true},
		{"case-insensitive file", "User-agent: *\nDisallow: /\nUser-agent: FOOBOT\nAllow: /\n", "FooBot", "/x", true},
		{"whole UA header", rb, "FooBot/1.2 (+https://example.org/bot)", "/x", true},
		{"token with comment", rb, "FooBot (+https://example.org/bot)", "/x", true},
		{"never substring", rb, "FooBotExtra", "/x", false},
		{"never prefix of caller", "User-agent: *\nDisallow: /\nUser-agent: Foo\nAllow: /\n", "FooBot", "/x", false},
		{"two words are no token", "User-agent: *\nDisallow: /\nUser-agent: Foo Bar\nAllow: /\n", "Foo Bar", "/x", false},
		{"file value cut at first non-token byte", "User-agent: *\nDisallow: /\nUser-agent: FooBot/2.1\nAllow: /\n", "FooBot", "/x", true},
		{"file value with trailing words", "User-agent: *\nDisallow: /\nUser-agent: FooBot Images\nAllow: /\n", "FooBot", "/x", true},
		{"star with words is global", "User-agent: * everyone\nDisallow: /\n", "FooBot", "/x", false},
		{"star glued to text is nothing", "User-agent: *bot\nDisallow: /\n", "FooBot", "/x", true},
		{"empty agent matches only global", "User-agent: FooBot\nDisallow: /\n", "", "/x", true},
		{"underscore and hyphen in token", "User-agent: *\nDisallow: /\nUser-agent: my_bot-x\nAllow: /\n", "MY_BOT-X/1.0", "/x", true},
	})
}

func TestRuleMatching(t *testing.T) {
	rb := func(rules string) string { return "User-agent: *\n" + rules }
	runAllowCases(t, []allowCase{
		{"prefix match", rb("Disallow: /fish\n"), "a", "/fish.html", false},
		{"prefix match heads", rb("Disallow: /fish\n"), "a", "/fishheads", false},
		{"path case-sensitive", rb("Disallow: /fish\n"), "a", "/Fish.asp", true},
		{"anchored at start", rb("Disallow: /fish\n"), "a", "/catfish", true},
		{"query not path", rb("Disallow: /fish\n"), "a", "/?id=fish", true},
		{"trailing slash matters", rb("Disallow: /fish/\n"), "a", "/fish", true},
		{"dollar anchors end", rb("Disallow: /*.php$\n"), "a", "/a.php", false},
		{"dollar rejects query", rb("Disallow: /*.php$\n"), "a", "/a.php?x", true},
		{"dollar rejects suffix", rb("Disallow: /*.php$\n"), "a", "/a.php5", true},
		{"star in middle", rb("Disallow: /fish*.php\n"), "a", "/fishheads/catfish.php?p", false},
		{"star matches slash", rb("Disallow: /a*z\n"), "a", "/a/b/c/z", false},
		{"star matches empty", rb("Disallow: /a*b\n"), "a", "/ab", false},
		{"trailing star adds nothing", rb("Disallow: /fish*\n"), "a", "/fish", false},
		{"leading star", rb("Disallow: *.gif$\n"), "a", "/x/y.gif", false},
		{"dollar in middle is literal", rb("Disallow: /a$b\n"), "a", "/a$b", false},
		{"dollar in middle is not anchor", rb("Disallow: /a$b\n"), "a", "/a", true},
		{"query matched", rb("Disallow: /*?\n"), "a", "/page?x=1", false},
		{"params matched", rb("Disallow: /a;s\n"), "a", "/a;sess=1", false},
		{"fragment ignored", rb("Disallow: /a$\n"), "a", "http://h/a#frag", false},
		{"empty path is slash", rb("Disallow: /$\n"), "a", "http://h", false},
		{"longest wins: allow", rb("Disallow: /a\nAllow: /a/b\n"), "a", "/a/b/c", true},
		{"longest wins: disallow", rb("Allow: /a\nDisallow: /a/b\n"), "a", "/a/b/c", false},
		{"tie goes to allow", rb("Disallow: /folder\nAllow: /folder\n"), "a", "/folder/page", true},
		{"length counts pattern octets", rb("Allow: /page\nDisallow: /*.ph\n"), "a", "/page.php5", true},
		{"length counts wildcards", rb("Allow: /page\nDisallow: /*.htm\n"), "a", "/page.htm", false},
		{"allow root only", rb("Allow: /$\nDisallow: /\n"), "a", "/", true},
		{"allow root only, page", rb("Allow: /$\nDisallow: /\n"), "a", "/page.htm", false},
		{"order in file irrelevant", rb("Allow: /a/b\nDisallow: /a\n"), "a", "/a/b", true},
		{"no rule matches", rb("Disallow: /a\n"), "a", "/b", true},
		{"robots.txt always allowed", rb("Disallow: /\n"), "a", "http://h/robots.txt", true},
		{"robots.txt with disallow rule", rb("Disallow: /robots.txt\n"), "a", "/robots.txt", true},
		{"robots.txt query is a page", rb("Disallow: /\n"), "a", "/robots.txt?x", false},
		{"absolute URL with port", rb("Disallow: /x\n"), "a", "http://h:8080/x/y", false},
		{"pattern not starting with slash never matches", rb("Disallow: x\n"), "a", "/x", true},
		{"index.html allows directory", rb("Allow: /d/index.html\nDisallow: /\n"), "a", "/d/", true},
		{"index.html keeps exact", rb("Allow: /d/index.html\nDisallow: /\n"), "a", "/d/index.html", true},
		{"index.html not other files", rb("Allow: /d/index.html\nDisallow: /\n"), "a", "/d/x", false},
		{"index.htm too", rb("Allow: /d/index.htm\nDisallow: /\n"), "a", "/d/", true},
		{"index rule only for allow", rb("Disallow: /d/index.html\n"), "a", "/d/", true},
	})
}

func TestPercentEncoding(t *testing.T) {
	rb := func(rules string) string { return "User-agent: *\nDisallow: /\n" + rules }
	runAllowCases(t, []allowCase{
		{"non-ASCII pattern vs escaped URL", rb("Allow: /foo/bar/ツ\n"), "a", "/foo/bar/%E3%83%84", true},
		{"escaped pattern vs escaped URL", rb("Allow: /foo/bar/%E3%83%84\n"), "a", "/foo/bar/%E3%83%84", true},
		{"lower-case hex in pattern", rb("Allow: /foo/bar/%e3%83%84\n"), "a", "/foo/bar/%E3%83%84", true},
		{"lower-case hex in URL", rb("Allow: /foo/bar/%E3%83%84\n"), "a", "/foo/bar/%e3%83%84", true},
		{"raw non-ASCII URL: Google reading refuses", rb("Allow: /foo/bar/ツ\n"), "a", "/foo/bar/ツ", false},
		{"escaped unreserved pattern vs same URL", rb("Allow: /foo/bar/%62%61%7A\n"), "a", "/foo/bar/%62%61%7A", true},
		{"escaped unreserved pattern vs plain URL: stricter reading", rb("Allow: /foo/bar/%62%61%7A\n"), "a", "/foo/bar/baz", false},
		{"reserved escape stays encoded", rb("Allow: /a%2Fb\n"), "a", "/a/b", false},
		{"reserved escape matches itself", rb("Allow: /a%2Fb\n"), "a", "/a%2fb", true},
		{"query stays as is", rb("Allow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n"), "a", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
	})
	// Disallow side: a rule that either reading matches blocks the URL.
	runAllowCases(t, []allowCase{
		{"disallow escaped unreserved blocks plain", "User-agent: *\nDisallow: /%62az\n", "a", "/baz", false},
		{"disallow plain blocks escaped unreserved", "User-agent: *\nDisallow: /baz\n", "a", "/%62az", false},
		{"encoded star matches literal star", "User-agent: *\nDisallow: /a%2Ab\n", "a", "/a*b", false},
		{"encoded dollar matches literal dollar", "User-agent: *\nDisallow: /a%24\n", "a", "/a$", false},
		{"star in URL is literal", "User-agent: *\nDisallow: /a%2A\n", "a", "/ab", true},
	})
}

func TestFormat(t *testing.T) {
	runAllowCases(t, []allowCase{
		{"field names case-insensitive", "USER-AGENT: FooBot\nDISALLOW: /x\n", "FooBot", "/x", false},
		{"values case-sensitive", "User-agent: FooBot\nDisallow: /X\n", "FooBot", "/x", true},
		{"comment at end", "User-agent: FooBot # me\nDisallow: /a#b\n", "FooBot", "/a", false},
		{"comment line", "User-agent: FooBot\n# Disallow: /\nDisallow: /a\n", "FooBot", "/b", true},
		{"BOM", "\xEF\xBB\xBFUser-agent: FooBot\nDisallow: /\n", "FooBot", "/x", false},
		{"partial BOM", "\xEF\xBBUser-agent: FooBot\nDisallow: /\n", "FooBot", "/x", false},
		{"BOM elsewhere is garbage", "User-agent: FooBot\n\xEF\xBB\xBFDisallow: /\n", "FooBot", "/x", true},
		{"CR line ends", "User-agent: FooBot\rDisallow: /\r", "FooBot", "/x", false},
		{"CRLF line ends", "User-agent: FooBot\r\nDisallow: /\r\n", "FooBot", "/x", false},
		{"mixed line ends", "User-agent: BarBot\rDisallow: /\r\nUser-agent: FooBot\nDisallow: /x", "FooBot", "/x", false},
		{"no final newline", "User-agent: FooBot\nDisallow: /", "FooBot", "/x", false},
		{"space and tabs", " \tUser-agent \t:\t FooBot \nDisallow :  /x  \n", "FooBot", "/x", false},
		{"missing colon", "User-agent FooBot\nDisallow /x\n", "FooBot", "/x", false},
		{"missing colon with three words ignored", "User-agent: FooBot\nDisallow /x y\n", "FooBot", "/x", true},
		{"typo useragent", "useragent: FooBot\nDisallow: /\n", "FooBot", "/x", false},
		{"typo user agent", "user agent: FooBot\nDisallow: /\n", "FooBot", "/x", false},
		{"typo disalow", "User-agent: FooBot\ndisalow: /\n", "FooBot", "/x", false},
		{"typo dissallow", "User-agent: FooBot\ndissallow: /\n", "FooBot", "/x", false},
		{"typo dissalow", "User-agent: FooBot\ndissalow: /\n", "FooBot", "/x", false},
		{"typo diasllow", "User-agent: FooBot\ndiasllow: /\n", "FooBot", "/x", false},
		{"typo disallaw", "User-agent: FooBot\ndisallaw: /\n", "FooBot", "/x", false},
		{"prefix field name", "User-agent: FooBot\ndisallowed: /\n", "FooBot", "/x", false},
		{"no typo for allow", "User-agent: FooBot\nDisallow: /\nalow: /x\n", "FooBot", "/x", false},
		{"HTML body is harmless", "<html><body>Disallow: /x</body></html>\n", "FooBot", "/x", true},
		{"noindex is never disallow", "User-agent: *\nNoindex: /x\n", "FooBot", "/x", true},
	})
}

func TestLimits(t *testing.T) {
	t.Run("line cap keeps the line", func(t *testing.T) {
		long := "/x/" + strings.Repeat("a", 20000) + "/qux"
		r := Parse([]byte("User-agent: FooBot\nDisallow: " + long + "\n"))
		if r.Allowed("FooBot", long[:maxLineLen-len("Disallow: ")]) {
			t.Error("the kept part of a long line must still be a rule")
		}
		if !r.Allowed("FooBot", "/x/b") {
			t.Error("a long rule must not widen")
		}
	})
	t.Run("500 KiB prefix parsed", func(t *testing.T) {
		pad := strings.Repeat("# padding\n", (MaxSize-100)/10)
		body := "User-agent: FooBot\n" + pad + "Disallow: /in\n" + strings.Repeat("#", 200) + "\nDisallow: /out\n"
		r := Parse([]byte(body))
		if r.Allowed("FooBot", "/in") {
			t.Error("rule inside the first 512,000 bytes ignored")
		}
		if !r.Allowed("FooBot", "/out") {
			t.Error("rule past 512,000 bytes used")
		}
	})
	t.Run("partial last line dropped", func(t *testing.T) {
		head := "User-agent: FooBot\nDisallow: /private\n"
		pad := strings.Repeat("#", MaxSize-len(head)-len("Allow: /")-1) + "\n"
		// Cut at MaxSize, "Allow: /private-area" would read "Allow: /".
		body := head + pad + "Allow: /private-area\n"
		if len(head+pad+"Allow: /") != MaxSize {
			t.Fatalf("fixture length %d", len(head+pad+"Allow: /"))
		}
		if Parse([]byte(body)).Allowed("FooBot", "/private") {
			t.Error("a cut line widened the rules")
		}
	})
	t.Run("line ending exactly at the cut is kept", func(t *testing.T) {
		head := "User-agent: FooBot\n"
		pad := strings.Repeat("#", MaxSize-len(head)-len("Disallow: /x")-1) + "\n"
		body := head + pad + "Disallow: /x\nmore"
		if !strings.HasSuffix(body[:MaxSize], "Disallow: /x") {
			t.Fatal("fixture")
		}
		if Parse([]byte(body)).Allowed("FooBot", "/x") {
			t.Error("complete last line dropped")
		}
	})
}

func TestZeroAndNil(t *testing.T) {
	var r *Robots
	if !r.Allowed("a", "/x") || len(r.Sitemaps()) != 0 {
		t.Error("nil Robots must allow all")
	}
	if _, ok := r.CrawlDelay("a"); ok {
		t.Error("nil Robots has no delay")
	}
	var z Robots
	if !z.Allowed("a", "/x") {
		t.Error("zero Robots must allow all")
	}
}

// The first decision for an agent compiles its groups; concurrent first
// decisions must build them once and agree (run with -race).
func TestConcurrentFirstDecisions(t *testing.T) {
	body := benchRobots()
	paths := benchPaths()
	agents := []string{"politecrawl", "Googlebot", "Bingbot", "unknownbot", "Slurp"}
	want := Parse(body)
	r := Parse(body)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				agent, path := agents[(w+i)%len(agents)], paths[(w*200+i)%len(paths)]
				if got := r.Allowed(agent, path); got != want.Allowed(agent, path) {
					t.Errorf("Allowed(%q, %q) = %v concurrently, %v alone", agent, path, got, !got)
				}
				r.CrawlDelay(agent)
			}
		})
	}
	wg.Wait()
}

func TestPathParamsQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "/"},
		{"http://www.example.com", "/"},
		{"http://www.example.com/", "/"},
		{"http://www.example.com/a", "/a"},
		{"http://www.example.com/a/", "/a/"},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"},
		{"http://www.example.com/a/b?c=d&e=f#fg", "/a/b?c=d&e=f"},
		{"example.com", "/"},
		{"example.com/", "/"},
		{"example.com/a", "/a"},
		{"a", "/"},
		{"a/", "/"},
		{"/a", "/a"},
		{"a/b", "/b"},
		{"example.com?a", "/?a"},
		{"example.com/a;b#c", "/a;b"},
		{"//a/b/c", "/b/c"},
		{"http://h/#x/y", "/"},
	} {
		if got := pathParamsQuery(c.in); got != c.want {
			t.Errorf("pathParamsQuery(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExplain(t *testing.T) {
	body := "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\nDisallow: /private\nAllow: /private/ok\n"
	r := Parse([]byte(body))
	for _, c := range []struct {
		agent, url string
		allowed    bool
		scope      Scope
		line       int // 0: no rule
	}{
		{"FooBot", "/private/x", false, ScopeAgent, 5},
		{"FooBot", "/private/ok", true, ScopeAgent, 6},
		{"FooBot", "/public", true, ScopeAgent, 0},
		{"BarBot", "/public", false, ScopeGlobal, 2},
		{"BarBot", "/robots.txt", true, ScopeRobotsTxt, 0},
	} {
		d := r.Explain(c.agent, c.url)
		line := 0
		if d.Rule != nil {
			line = d.Rule.Line
		}
		if d.Allowed != c.allowed || d.Scope != c.scope || line != c.line {
			t.Errorf("Explain(%q, %q) = %+v (line %d), want allowed=%v scope=%v line=%d", c.agent, c.url, d, line, c.allowed, c.scope, c.line)
		}
	}
	if d := Parse([]byte("User-agent: x\nDisallow: /\n")).Explain("FooBot", "/"); d.Scope != ScopeNone || !d.Allowed {
		t.Errorf("no group applies: %+v", d)
	}
}
