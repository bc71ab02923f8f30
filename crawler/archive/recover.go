package archive

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Recovered describes one file Recover repaired.
type Recovered struct {
	File    string // its final name (OpenSuffix removed), "" if it was removed
	Records int    // whole records kept
	Dropped int64  // bytes cut from its end
}

// Recover repairs the files a killed writer left in dir: each *.open file
// is cut after its last whole record, synced and renamed without
// OpenSuffix; one without a single whole record is removed. Files that
// were closed properly are not touched.
func Recover(dir string) ([]Recovered, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*"+OpenSuffix))
	if err != nil {
		return nil, fmt.Errorf("recover %q: %w", dir, err)
	}
	sort.Strings(names)
	var out []Recovered
	for _, path := range names {
		r, err := recoverFile(path)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if len(out) > 0 {
		return out, syncDir(dir)
	}
	return out, nil
}

func recoverFile(path string) (Recovered, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return Recovered{}, fmt.Errorf("recover %s: %w", path, err)
	}
	defer f.Close()
	var r Recovered
	final := strings.TrimSuffix(path, OpenSuffix)
	var lines []string
	end, _ := Scan(f, func(e Entry) error { // damage is what we cut
		r.Records++
		if c, ok := IndexEntry(e, filepath.Base(final)); ok {
			lines = append(lines, c.String())
		}
		return nil
	})
	st, err := f.Stat()
	if err != nil {
		return r, fmt.Errorf("recover %s: %w", path, err)
	}
	r.Dropped = st.Size() - end
	if r.Records == 0 {
		return r, os.Remove(path)
	}
	if err := f.Truncate(end); err != nil {
		return r, fmt.Errorf("recover %s: truncate: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return r, fmt.Errorf("recover %s: %w", path, err)
	}
	if err := os.Rename(path, final); err != nil {
		return r, fmt.Errorf("recover %s: %w", path, err)
	}
	r.File = filepath.Base(final)
	if err := writeIndex(final, lines); err != nil {
		return r, fmt.Errorf("recover %s: index: %w", path, err)
	}
	return r, nil
}
