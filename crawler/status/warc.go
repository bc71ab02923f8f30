package status

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WARCFiles lists the WARC files in dir (the last 50, newest last).
func WARCFiles(dir string) *WARC {
	w := &WARC{Dir: dir, Files: []WARCFile{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return w
	}
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".warc") || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		w.Files = append(w.Files, WARCFile{Name: filepath.Base(e.Name()), Bytes: info.Size()})
		w.Bytes += info.Size()
	}
	sort.Slice(w.Files, func(i, j int) bool { return w.Files[i].Name < w.Files[j].Name })
	if n := len(w.Files); n > 50 {
		w.Files = w.Files[n-50:]
	}
	return w
}
