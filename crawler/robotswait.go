package crawler

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// robotsGaveUpPrefix starts the error of a URL failed because its host's
// robots.txt stayed unreachable; a later run queues such URLs again.
const robotsGaveUpPrefix = "robots.txt unreachable after "

// gaveUpReason is the error of every URL of an origin given up, failed
// at the give-up or found after it: gaveUpOnRobots must recognise it, or
// the next run would not queue the URL again. A refused private address
// says so (its reason has privatePrefix); a robots.txt that stayed
// unreachable says after how many attempts.
func gaveUpReason(o *robotscache.Origin) string {
	if strings.HasPrefix(o.Reason(), privatePrefix) {
		return o.Reason()
	}
	return robotsGaveUpPrefix + fmt.Sprint(o.Attempts()) + " attempts: " + o.Reason() + " (the next run tries again)"
}

// gaveUpOnRobots reports whether a URL failed because its origin's
// robots.txt never answered (or its address was refused): the next run
// gives such URLs another chance. The origin's robots.txt is fetched
// again (robotscache.Cache.Restore keeps no rules for an unreachable file,
// and starts a given-up origin's attempts again). A
// batch run with --robots-retries 0 thus ends at once, and the next run
// retries.
func gaveUpOnRobots(errText string) bool {
	return strings.HasPrefix(errText, robotsGaveUpPrefix) || strings.HasPrefix(errText, privatePrefix)
}

// requeueUnreachable queues again the URLs of every origin whose
// robots.txt was unreachable when the last run gave up on it.
func requeueUnreachable(tx *storage.Tx, log *slog.Logger) error {
	var retry []string
	if err := tx.ForEachRobots(func(origin string, r *storage.RobotsRecord) error {
		if r.Outcome == robotscache.Unreachable.String() {
			retry = append(retry, origin)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, origin := range retry {
		n, err := frontier.RequeueGivenUp(tx, origin, gaveUpOnRobots)
		if err != nil {
			return err
		}
		if n > 0 {
			log.Info("robots.txt was unreachable last run: its URLs are queued again", "origin", origin, "urls", n)
		}
	}
	return nil
}
