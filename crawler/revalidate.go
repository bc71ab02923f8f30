package crawler

import (
	"strings"

	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/storage"
)

// revalidates reports whether a recheck of rec may be a conditional GET.
// A 304 keeps what the last fetch kept, so when that fetch kept less than
// is wanted now, the recheck must be a full GET or the page never
// recovers: its body is wanted (store_bodies, on again for its host) but
// none is stored; its last fetch was not stored because the declared
// purpose was refused (the refusal may be lifted); or its host is
// archived and the WARC files hold no capture of it for a revisit record
// to refer to.
func revalidates(tx *storage.Tx, cfg *Config, front *frontier.Frontier[task], host string, rec *storage.URLRecord) bool {
	if isNotStored(rec.Error) {
		return false
	}
	if cfg.Archive != nil && front.Archives(host, true) && rec.PayloadDigest == "" {
		return false
	}
	wantBody := front.StoreBodies(host, cfg.StoreBodies) && !rec.NoIndex &&
		rec.Status >= 200 && rec.Status < 300
	return !wantBody || tx.HasBody(rec.URL)
}

// notStoredSuffix ends the error of a record fetched but not stored
// because of a content-use refusal (see notStoredReason).
const notStoredSuffix = ": not stored"

// isNotStored reports whether a record's error is a content-use refusal's
// not-stored reason.
func isNotStored(errText string) bool {
	return strings.HasPrefix(errText, "content-use: ") && strings.HasSuffix(errText, notStoredSuffix)
}
