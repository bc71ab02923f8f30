package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/politecrawl/politecrawl/crawler/crawltest"
	"github.com/politecrawl/politecrawl/crawler/status"
)

// chromiumPath is Debian's Chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// hostileTitle is a page title and robots.txt comment that must show as
// text: if it ran, window.pwned would be set.
const hostileTitle = `<script>window.pwned=1</script><b>bold</b><img src=x onerror="window.pwned=2">`

// consoleWeb is the standard test web plus three hosts the console must
// show: slow (Crawl-delay 2 s and pages enough to keep it waiting), hang
// (robots.txt never answers) and hostile (HTML in its title and robots.txt).
func consoleWeb() (*crawltest.Web, []string) {
	w := crawltest.Standard()
	slow := map[string]*crawltest.Page{"/robots.txt": {Body: "User-agent: *\nCrawl-delay: 2\n"}}
	links := ""
	for i := range 40 {
		p := fmt.Sprintf("/p%d", i)
		links += fmt.Sprintf(`<a href="%s">%d</a> `, p, i)
		slow[p] = &crawltest.Page{Body: "<title>slow</title>ok"}
	}
	slow["/"] = &crawltest.Page{Body: "<title>slow home</title>" + links}
	w.AddHost("slow", slow)
	w.AddHost("hang", map[string]*crawltest.Page{
		"/robots.txt": {Delay: time.Hour},
		"/":           {Body: "never fetched"},
	})
	w.AddHost("hostile", map[string]*crawltest.Page{
		"/robots.txt": {Body: "# " + hostileTitle + "\nUser-agent: *\nDisallow: /" + url.PathEscape(hostileTitle) + "\n"},
		"/":           {Body: "<html><head><title>" + hostileTitle + "</title></head><body>x</body></html>"},
	})
	var seeds []string
	for _, n := range []string{"main", "slow", "hang", "hostile"} {
		seeds = append(seeds, w.Host(n).URL("/"))
	}
	return w, seeds
}

// browser starts headless Chromium, or skips (by hand) or fails (CI)
// without it.
func browser(t *testing.T) (context.Context, *consoleErrors) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: .ci/run installs it (apt-get install chromium)", chromiumPath)
		}
		t.Skipf("the console's browser test needs Debian's Chromium at %s (apt-get install chromium); .ci/run installs it", chromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	// Start the browser (without a timeout: it would end the browser).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	errs := &consoleErrors{}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				errs.add(fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
			}
		}
	}()
	t.Cleanup(func() { cancelB(); <-done })
	return ctx, errs
}

// consoleErrors collects what the page reported as errors.
type consoleErrors struct {
	mu   sync.Mutex
	list []string
}

func (c *consoleErrors) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, s)
}

func (c *consoleErrors) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.list...)
}

// screenshotDir is where the test leaves its screenshots:
// $POLITECRAWL_SCREENSHOTS, else a new temporary directory (kept).
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("POLITECRAWL_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d, err := os.MkdirTemp("", "politecrawl-console-")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestConsoleInBrowser crawls the test web with the console on and reads
// it as a person would, in headless Chromium: the overview's counts are
// status --json's, a host on a 2 s Crawl-delay shows "waiting" with its
// next time, a host whose robots.txt hangs shows it, a hostile title shows
// as text, and the pages report no errors (exceptions, console errors,
// CSP violations). Screenshots of the overview and a host page are saved.
func TestConsoleInBrowser(t *testing.T) {
	ctx, errs := browser(t)
	w, seeds := consoleWeb()
	defer w.Close()
	dir := t.TempDir()
	listen := freePort(t)
	cfgPath := filepath.Join(dir, "c.yaml")
	quoted := make([]string, len(seeds))
	for i, s := range seeds {
		quoted[i] = strconv.Quote(s)
	}
	cfg := fmt.Sprintf(`seeds: [%s]
state: %q
workers: 4
politeness:
  default_delay: 20ms
  allow_fast: true
  robots_retry_delay: 10m
network:
  allow_private: true
  header_timeout: 1s
  timeout: 2s
daemon:
  shutdown_timeout: 2s
http:
  listen: %q
`, strings.Join(quoted, ", "), filepath.Join(dir, "state.db"), listen)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, cfgPath)
	defer d.stop(t)
	base := "http://" + listen
	slow, hang, hostile := w.Host("slow").Authority(), w.Host("hang").Authority(), w.Host("hostile").Authority()

	// Wait for what the test looks at: slow waiting on its delay, hang's
	// robots.txt given up on for now, hostile's page fetched.
	waitUntil(t, "the hosts' states", 20*time.Second, func() bool {
		var st status.Status
		api := crawlAPI{state: filepath.Join(dir, "state.db"), listen: listen}
		if api.getJSON("/status", &st) != nil {
			return false
		}
		got := map[string]status.Host{}
		for _, h := range st.PerHost {
			got[h.Host] = h
		}
		return got[slow].Fetched >= 2 && got[hang].State == status.StateRobotsUnreachable && got[hostile].Fetched >= 1
	})

	// The overview's counts match status --json, read at the same
	// moment: the slow host fetches every 2 s, so a few tries find a
	// moment with no change between the two reads.
	matched := false
	for try := 0; try < 10 && !matched; try++ {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("count-fetched"))); err != nil {
			t.Fatal(err)
		}
		counts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](
			`Object.fromEntries([...document.querySelectorAll("[id^=count-]")].map(e => [e.id, e.textContent.trim()]))`))
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(binary, "status", "-c", cfgPath, "--json").Output()
		if err != nil {
			t.Fatalf("status --json: %v", err)
		}
		var st status.Status
		if err := json.Unmarshal(out, &st); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"count-fetched": strconv.Itoa(st.Fetched), "count-queued": strconv.Itoa(st.Queued),
			"count-disallowed": strconv.Itoa(st.Disallowed), "count-failed": strconv.Itoa(st.Failed),
			"count-skipped": strconv.Itoa(st.Skipped), "count-hosts": strconv.Itoa(st.Hosts)}
		matched = true
		for k, v := range want {
			if counts[k] != v {
				matched = false
				t.Logf("try %d: the overview shows %s %s, status --json %s", try, k, counts[k], v)
			}
		}
		if _, ok := counts["count-in-flight"]; !ok {
			t.Errorf("the overview shows no in-flight count")
		}
		if !matched {
			time.Sleep(300 * time.Millisecond)
		}
	}
	if !matched {
		t.Errorf("the overview's counts never matched status --json")
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shots := screenshotDir(t)
	save := func(name string, b []byte) {
		p := filepath.Join(shots, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
		fmt.Fprintf(os.Stderr, "console screenshot: %s\n", p)
	}
	save("console-overview.png", shot)

	// status --hosts reads the same snapshot: the slow host's delay
	// comes from its Crawl-delay, the hanging one waits on robots.txt.
	out, err := exec.Command(binary, "status", "-c", cfgPath, "--hosts").Output()
	if err != nil {
		t.Fatalf("status --hosts: %v", err)
	}
	for host, want := range map[string]string{slow: "2s (robots.txt Crawl-delay)", hang: status.StateRobotsUnreachable} {
		line := ""
		for l := range strings.SplitSeq(string(out), "\n") {
			if strings.HasPrefix(l, host+" ") {
				line = l
			}
		}
		if !strings.Contains(line, want) {
			t.Errorf("status --hosts: %s's line %q does not say %q", host, line, want)
		}
	}

	// The hosts table: slow waits, with its next time; hang's robots.txt
	// is unreachable until its retry.
	row := func(host string) string {
		t.Helper()
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(fmt.Sprintf(`tr[data-host=%q]`, host))))
		if err != nil {
			t.Fatalf("the hosts table has no row for %s: %v", host, err)
		}
		return text
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/hosts?sort=name&per=100"), chromedp.WaitVisible(chromedp.ID("hosts"))); err != nil {
		t.Fatal(err)
	}
	slowRow, hangRow := row(slow), row(hang)
	// Between two requests it is waiting nearly all of its 2 s: look
	// again if the page caught it fetching.
	for try := 0; try < 5 && !strings.Contains(slowRow, "waiting until"); try++ {
		time.Sleep(300 * time.Millisecond)
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("hosts"))); err != nil {
			t.Fatal(err)
		}
		slowRow = row(slow)
	}
	if !strings.Contains(slowRow, "waiting until") || !strings.Contains(slowRow, "Crawl-delay") || !strings.Contains(slowRow, "2s") {
		t.Errorf("slow host's row %q: want \"waiting until\" its next time, its 2s delay from Crawl-delay", slowRow)
	}
	if !strings.Contains(hangRow, "robots.txt unreachable until") {
		t.Errorf("hang host's row %q: want robots.txt unreachable until its retry", hangRow)
	}

	// The operator pauses the slow host over HTTP: its row says so;
	// resumed, it waits on its delay again.
	post := func(path string) {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: HTTP %d", path, resp.StatusCode)
		}
	}
	post("/hosts/" + url.PathEscape(slow) + "/pause")
	time.Sleep(1100 * time.Millisecond) // the console's snapshot is a second old at most
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/hosts?state=paused"), chromedp.WaitVisible(chromedp.ID("hosts"))); err != nil {
		t.Fatal(err)
	}
	if r := row(slow); !strings.Contains(r, "paused") || !strings.Contains(r, "by the operator") {
		t.Errorf("slow host's row after POST .../pause: %q", r)
	}
	post("/hosts/" + url.PathEscape(slow) + "/resume")

	// The hostile host's page: its title and robots.txt are text.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/hosts/"+url.PathEscape(hostile)), chromedp.WaitVisible(chromedp.ID("recent"))); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#recent td.title")))
	if err != nil {
		t.Fatal(err)
	}
	robotsText, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("robots-body")))
	if err != nil {
		t.Fatal(err)
	}
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`window.pwned === undefined && document.querySelector("#recent td.title").children.length === 0 &&
			document.querySelectorAll("main img, main script").length === 0 ? "clean" : "ran"`))
	if err != nil {
		t.Fatal(err)
	}
	if shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Fatal(err)
	}
	if title != hostileTitle {
		t.Errorf("hostile title shows as %q, want the text %q", title, hostileTitle)
	}
	if !strings.Contains(robotsText, hostileTitle) {
		t.Errorf("hostile robots.txt shows as %q, want its text", robotsText)
	}
	if pwned != "clean" {
		t.Errorf("the hostile page's HTML became markup or ran (%v)", pwned)
	}
	save("console-host.png", shot)

	// The slow host's page, then a refresh by the page's own script.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/hosts/"+url.PathEscape(slow)), chromedp.WaitVisible(chromedp.ID("host-state")),
		chromedp.Sleep(5500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	state, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("host-state")))
	if err != nil {
		t.Fatal(err)
	}
	if state == "" {
		t.Errorf("slow host's page shows no state")
	}
	// On a phone's screen the pages fit its width: wide tables scroll in
	// their own box, the page itself does not.
	for _, path := range []string{"/", "/hosts"} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
			chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
			t.Fatal(err)
		}
		fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if !fits {
			t.Errorf("%s on a 390 px wide phone: the page is wider than the screen", path)
		}
	}
	if shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Fatal(err)
	}
	save("console-hosts-phone.png", shot)

	if e := errs.all(); len(e) > 0 {
		t.Errorf("the console reported errors:\n%s", strings.Join(e, "\n"))
	}
}
