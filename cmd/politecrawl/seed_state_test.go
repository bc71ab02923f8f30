package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/politecrawl/crawler"
	"github.com/politecrawl/politecrawl/storage"
)

// TestSeedWithStateAlone: `seed --state PATH` without a config hands the
// URLs to the crawl running on PATH; with none running it refuses (exit
// 2, naming -c) instead of calling every URL out of scope (the defaults'
// scope is empty), and a path with no state file stays without one
// (before: it was created, with a .bak, and the URL refused).
func TestSeedWithStateAlone(t *testing.T) {
	dir := t.TempDir()
	seed := func(state string) (string, string, int) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"seed", "--state", state, "http://site.example/more"}, &out, &errb)
		return out.String(), errb.String(), code
	}

	missing := filepath.Join(dir, "nothere.db")
	if out, errs, code := seed(missing); code != 1 || out != "" || !strings.Contains(errs, "no state file at "+missing) {
		t.Errorf("missing state: exit %d, %q %q", code, out, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("seed --state on a missing file made %v", left)
	}

	state := filepath.Join(dir, "s.db")
	db, err := storage.Open(state, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if out, errs, code := seed(state); code != 2 || out != "" || !strings.Contains(errs, "no crawl is running on it") || !strings.Contains(errs, "-c FILE") {
		t.Errorf("stopped crawl: exit %d, %q %q", code, out, errs)
	}

	// A crawl holds the file and answers on its control socket.
	db, err = storage.Open(state, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got []string
	stop, err := serveSocket(state, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req SeedRequest
		json.NewDecoder(r.Body).Decode(&req)
		got = req.URLs
		json.NewEncoder(w).Encode(SeedResponse{Results: []crawler.SeedResult{{URL: req.URLs[0], Outcome: "queued"}}})
	}), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if out, errs, code := seed(state); code != 0 || out != "http://site.example/more\tqueued\n" || len(got) != 1 {
		t.Errorf("running crawl: exit %d, %q %q (it got %v)", code, out, errs, got)
	}
}

// TestSeedIntoAFolderThatIsNot: seed -c makes the config's state file for
// the first run; where it cannot, it says why with the user's folder, not
// "no state file" nor the temporary name it tried.
func TestSeedIntoAFolderThatIsNot(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(cfg, []byte("seeds: [\"http://site.example/\"]\nstate: nodir/s.db\n"), 0o600)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"seed", "-c", cfg, "http://site.example/more"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "cannot create a file in "+filepath.Join(dir, "nodir")+": no such file") ||
		strings.Contains(errb.String(), "no state file") || strings.Contains(errb.String(), ".new-") {
		t.Errorf("seed into a missing folder: exit %d, %q", code, errb.String())
	}
}
