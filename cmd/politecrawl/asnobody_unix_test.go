//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asNobodyEnv marks a test binary run again as user nobody (see
// rerunAsNobody).
const asNobodyEnv = "POLITECRAWL_TEST_AS_NOBODY"

// rerunAsNobody runs the test named name again in a copy of this test
// binary as user nobody (65534), and fails t if it fails there. It is for
// tests of what a user without rights sees, which root cannot see (root
// reads every file): CI runs as root, and such a test must run there, not
// skip. The copy and the child's temporary folder are in a folder nobody
// may use, so that the child can run and make its own files.
func rerunAsNobody(t *testing.T, name string) {
	t.Helper()
	if os.Getenv(asNobodyEnv) != "" {
		t.Fatalf("running as uid %d after the switch to nobody", os.Geteuid())
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	work, err := os.MkdirTemp("", "politecrawl-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "test.bin")
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), asNobodyEnv+"=1", "TMPDIR="+work, "HOME="+work)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s as user nobody: %v\n%s", name, err, out)
	}
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
