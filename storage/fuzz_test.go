package storage

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var fuzzBase struct {
	once sync.Once
	data []byte
	ps   int64
}

// FuzzOpenDamaged damages a real state file (a truncation and an
// overwrite chosen by the fuzzer), then opens it read-only and read-write,
// reads everything and writes, and salvages it. Properties: nothing
// panics or faults; every failure is ErrDamaged; a salvaged copy passes
// the full check.
func FuzzOpenDamaged(f *testing.F) {
	fuzzBase.once.Do(func() {
		path := mustStateFile(f, 300)
		fuzzBase.data, _ = os.ReadFile(path)
		fuzzBase.ps, _, _ = pagesOf(f, path)
	})
	ps := uint32(fuzzBase.ps)
	n := uint32(len(fuzzBase.data))
	f.Add(uint32(0), uint32(0), []byte{}, false)
	f.Add(n/2, uint32(0), []byte{}, true)
	f.Add(ps+100, uint32(0), []byte{}, false)
	f.Add(uint32(0), uint32(16), []byte{1, 2, 3, 4}, false)
	f.Add(uint32(0), ps+16, []byte{0xff, 0xff}, true)
	f.Add(uint32(0), 2*ps+8, []byte{0x01, 0x00}, false)  // a page's flags
	f.Add(uint32(0), 3*ps+10, []byte{0xff, 0xff}, false) // a page's count
	f.Add(uint32(0), 4*ps+16, []byte{0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0xff}, true)
	f.Fuzz(func(t *testing.T, cut, off uint32, patch []byte, readOnly bool) {
		data := append([]byte(nil), fuzzBase.data...)
		if cut > 0 {
			data = data[:cut%(n+1)]
		}
		if len(data) > 0 && len(patch) > 0 {
			copy(data[off%uint32(len(data)):], patch)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readAll(path, readOnly); err != nil && !errors.Is(err, ErrDamaged) {
			t.Fatalf("readonly=%v: error %v is not ErrDamaged", readOnly, err)
		}
		if _, err := Check(path, Options{FullCheck: true}); err != nil {
			t.Fatalf("check: %v", err)
		}
		dst := filepath.Join(dir, "new.db")
		if _, err := Salvage(path, dst, Options{}); err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("salvage: %v is not ErrDamaged", err)
			}
			return
		}
		if r, err := Check(dst, Options{FullCheck: true}); err != nil || len(r.Problems) > 0 {
			t.Fatalf("salvaged copy: %v %v", err, r.Problems)
		}
	})
}

// TestRandomPageDamage is the fuzz target's property over a fixed sample:
// one or two bytes garbled in the header or first elements of a page in
// use, files built afresh every few rounds (bbolt's page layout varies).
// It found the branch-key bound that bbolt's freelist walk crashes on.
func TestRandomPageDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var healthy []byte
	var inUse []uint64
	for round := range 40 {
		if round%10 == 0 {
			path := mustStateFile(t, 300+rng.IntN(300))
			healthy, _ = os.ReadFile(path)
			pf, err := openPageFile(path)
			if err != nil {
				t.Fatal(err)
			}
			w := &walker{pf: pf, damage: func([][]byte, error) {}}
			w.walkRoot()
			inUse = inUse[:0]
			for id := range w.seen {
				inUse = append(inUse, id)
			}
			pf.Close()
		}
		data := append([]byte(nil), healthy...)
		off := int(inUse[rng.IntN(len(inUse))])*4096 + rng.IntN(160)
		for k := rng.IntN(2); k >= 0; k-- {
			data[off+k] = byte(rng.Uint32())
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		os.WriteFile(path, data, 0o600)
		readOnly := rng.IntN(2) == 0
		if _, err := readAll(path, readOnly); err != nil && !errors.Is(err, ErrDamaged) {
			t.Fatalf("round %d (offset %d, readonly=%v): %v", round, off, readOnly, err)
		}
		dst := filepath.Join(dir, "new.db")
		if _, err := Salvage(path, dst, Options{}); err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("round %d: salvage: %v", round, err)
			}
			continue
		}
		if r, err := Check(dst, Options{FullCheck: true}); err != nil || len(r.Problems) > 0 {
			t.Fatalf("round %d: salvaged copy: %v %v", round, err, r.Problems)
		}
	}
}
