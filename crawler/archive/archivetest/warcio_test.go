package archivetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestWarcioIsPinnedBesideItsUser: warcio.js is pinned in this package's
// warcio/ folder, where cli looks for it and `make deps` installs it, and
// nothing is left of the old tools/ folder at the repository's top level,
// which holds only go.mod, go.sum, cmd, crawler, robots, frontier,
// storage, config.example.yaml, README.md, Makefile and .ci.
func TestWarcioIsPinnedBesideItsUser(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, filepath.FromSlash(warcioDir))
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for name, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("the warcio.js pin: %v", err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	want, locked := pkg.Dependencies["warcio"], lock.Packages["node_modules/warcio"].Version
	if want == "" || want != locked {
		t.Errorf("package.json pins warcio %q, package-lock.json locks %q: want one exact version", want, locked)
	}
	if _, err := os.Stat(filepath.Join(root, "tools")); !os.IsNotExist(err) {
		t.Errorf("the top level has tools/ (%v): warcio.js is pinned in %s", err, warcioDir)
	}
}
