package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/politecrawl/politecrawl/storage"
)

// TestStateFileError: a state file the user may not read is reported as
// such, with whom to run as, not as a missing file (before: "no state
// file at ... (has a crawl run with this config?)" for both).
func TestStateFileError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.db")
	for _, c := range []struct {
		err      error
		want     []string
		not      []string
		sameText bool
	}{
		{&fs.PathError{Op: "stat", Path: path, Err: syscall.ENOENT}, []string{"no state file at " + path}, []string{"permission"}, false},
		{&fs.PathError{Op: "stat", Path: path, Err: syscall.EACCES},
			// The folder is this user's own: another user would not
			// help (the review saw "run this command as ... (nobody)"
			// said to nobody).
			[]string{"state file " + path + ": permission denied", "mode d", "though it is yours", "chmod u+rwx " + dir}, []string{"no state file", "run this command as"}, false},
		{errors.New(`open state "x": ` + (&fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}).Error()), nil, nil, true},
		{errors.New("something else"), nil, nil, true},
	} {
		got := stateFileError(path, c.err).Error()
		if c.sameText && got != c.err.Error() {
			t.Errorf("%v: became %q", c.err, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: %q lacks %q", c.err, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%v: %q has %q", c.err, got, w)
			}
		}
	}
}

// TestReadOnlyCommandsOnAnUnreadableState: every command that reads the
// state file says permission denied when its folder keeps the user out.
// Root reads any folder, so under root the test runs again as nobody.
func TestReadOnlyCommandsOnAnUnreadableState(t *testing.T) {
	if os.Geteuid() == 0 {
		// Root reads any folder: the test runs again as nobody.
		rerunAsNobody(t, t.Name())
		return
	}
	dir := filepath.Join(t.TempDir(), "state")
	os.Mkdir(dir, 0o750)
	state := filepath.Join(dir, "crawl.db")
	db, err := storage.Open(state, storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Chmod(dir, 0)
	defer os.Chmod(dir, 0o750)
	for _, args := range [][]string{{"status"}, {"export"}, {"why", "http://site.example/"}, {"state", "check"},
		{"state", "salvage", "-o", filepath.Join(t.TempDir(), "new.db")}, {"seed", "http://site.example/"}, {"host", "pause", "site.example"}} {
		var out, errb bytes.Buffer
		Main(context.Background(), append(args, "--state", state), &out, &errb)
		if !strings.Contains(errb.String(), "permission denied") || strings.Contains(errb.String(), "no state file") {
			t.Errorf("%v: %q", args, errb.String())
		}
	}
}
