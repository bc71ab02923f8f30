package storage

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustOpen(t *testing.T) *DB {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestQueueFIFOPerHost(t *testing.T) {
	d := mustOpen(t)
	err := d.Update(func(tx *Tx) error {
		for i := 0; i < 3; i++ {
			for _, h := range []string{"a.test", "b.test:8080"} {
				if err := tx.Enqueue(h, fmt.Sprintf("http://%s/%d", h, i)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		err := d.Update(func(tx *Tx) error {
			u, seq, ok := tx.Head("a.test")
			if !ok || u != fmt.Sprintf("http://a.test/%d", i) {
				t.Fatalf("step %d: head = %q, %v", i, u, ok)
			}
			return tx.Dequeue("a.test", seq)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	d.View(func(tx *Tx) error {
		if _, _, ok := tx.Head("a.test"); ok {
			t.Error("a.test queue should be empty")
		}
		hosts := map[string]int{}
		tx.QueuedHosts(func(h string, n int) error { hosts[h] = n; return nil })
		if len(hosts) != 1 || hosts["b.test:8080"] != 3 {
			t.Errorf("queued hosts %v", hosts)
		}
		return nil
	})
}

func TestHostPrefixesDoNotCollide(t *testing.T) {
	d := mustOpen(t)
	d.Update(func(tx *Tx) error {
		tx.Enqueue("a.test:80", "http://a.test:80/x")
		return nil
	})
	d.View(func(tx *Tx) error {
		if _, _, ok := tx.Head("a.test"); ok {
			t.Error("a.test must not see a.test:80's queue")
		}
		return nil
	})
}

func TestCountersFollowStates(t *testing.T) {
	d := mustOpen(t)
	d.Update(func(tx *Tx) error {
		for i := 0; i < 5; i++ {
			tx.PutURL(&URLRecord{URL: fmt.Sprint("u", i), State: Queued}, "")
		}
		return nil
	})
	d.Update(func(tx *Tx) error {
		tx.PutURL(&URLRecord{URL: "u0", State: Fetched}, Queued)
		tx.PutURL(&URLRecord{URL: "u1", State: Disallowed}, Queued)
		return nil
	})
	// A failed transaction changes no counter.
	boom := errors.New("boom")
	if err := d.Update(func(tx *Tx) error {
		tx.PutURL(&URLRecord{URL: "u2", State: Failed}, Queued)
		return boom
	}); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	d.View(func(tx *Tx) error {
		got := tx.Counts()
		want := map[State]int{Queued: 3, Fetched: 1, Disallowed: 1, Failed: 0, Skipped: 0}
		for s, n := range want {
			if got[s] != n {
				t.Errorf("%s = %d, want %d", s, got[s], n)
			}
		}
		if r, _ := tx.GetURL("u2"); r.State != Queued {
			t.Errorf("rolled back record changed: %v", r.State)
		}
		return nil
	})
}

func TestBodiesRoundTrip(t *testing.T) {
	d := mustOpen(t)
	gz := func(b []byte) []byte { // how every body was stored before raw ones
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	big := []byte("<html>" + strings.Repeat("x", 10000) + "</html>")
	for _, c := range []struct {
		name   string
		body   []byte
		stored []byte // put as it is instead of through PutBody
		raw    bool   // PutBody keeps it uncompressed
	}{
		{name: "empty", body: []byte{}, raw: true},
		{name: "one byte", body: []byte("x"), raw: true},
		{name: "under rawBodyMax", body: bytes.Repeat([]byte("a"), rawBodyMax-1), raw: true},
		{name: "starts like gzip", body: []byte("\x1f\x8b\x08 not gzip"), raw: true},
		{name: "starts with the raw mark", body: []byte("\x00\x00x"), raw: true},
		{name: "at rawBodyMax", body: bytes.Repeat([]byte("a"), rawBodyMax)},
		{name: "10 KB", body: big},
		{name: "old file, small", body: []byte("<p>hi</p>"), stored: gz([]byte("<p>hi</p>"))},
		{name: "old file, big", body: big, stored: gz(big)},
	} {
		u := "http://a/" + strings.ReplaceAll(c.name, " ", "-")
		d.Update(func(tx *Tx) error {
			if c.stored != nil {
				return tx.PutCompressedBody(u, c.stored)
			}
			return tx.PutBody(u, c.body)
		})
		d.View(func(tx *Tx) error {
			got, err := tx.Body(u)
			if err != nil || !bytes.Equal(got, c.body) || got == nil {
				t.Errorf("%s: got %d bytes (%q...), %v; want %d", c.name, len(got), cut(got), err, len(c.body))
			}
			if v := tx.b(bucketBodies).Get([]byte(u)); c.stored == nil && (v[0] == rawBody) != c.raw {
				t.Errorf("%s: stored raw %v, want %v", c.name, v[0] == rawBody, c.raw)
			}
			return nil
		})
	}
	d.View(func(tx *Tx) error {
		if b, _ := tx.Body("http://none/"); b != nil {
			t.Error("missing body should be nil")
		}
		return nil
	})
}

func cut(b []byte) []byte { return b[:min(len(b), 16)] }

// FuzzBodyRoundTrip: every body reads back as it was stored, whatever its
// length and first bytes, and decoding a stored value never panics.
func FuzzBodyRoundTrip(f *testing.F) {
	f.Add([]byte("<html></html>"))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0})
	f.Add([]byte{0})
	f.Add(bytes.Repeat([]byte("ab"), rawBodyMax))
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := CompressBody(body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBody(v)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("round trip of %d bytes: %d bytes, %v", len(body), len(got), err)
		}
		decodeBody(body) // a damaged value: an error at most
		if len(v) > 5 && v[0] == rawBody {
			v[5+len(body)/2] ^= 0x40
			if _, err := decodeBody(v); err == nil {
				t.Fatalf("a flipped bit in a raw body of %d bytes went unnoticed", len(body))
			}
		}
	})
}

func TestLockedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = OpenReadOnly(path, Options{Timeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Errorf("second open: %v, want ErrLocked", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Error("locked open must not hang")
	}
	d.Close()
	ro, err := OpenReadOnly(path, Options{})
	if err != nil {
		t.Fatalf("read-only open after close: %v", err)
	}
	ro.Close()
}

func TestRecordsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	d, _ := Open(path, Options{})
	now := time.Now().UTC().Truncate(time.Second)
	d.Update(func(tx *Tx) error {
		tx.PutURL(&URLRecord{URL: "http://a/", State: Fetched, Status: 200, FetchedAt: now, Links: []string{"http://a/b"}}, "")
		tx.PutHost("a", HostRecord{LastRequest: now, Pages: 1})
		tx.PutRobots("http://a", &RobotsRecord{FetchedAt: now, Outcome: "parsed", Body: []byte("User-agent: *")})
		return tx.Enqueue("a", "http://a/b")
	})
	d.Close()
	d, _ = Open(path, Options{})
	defer d.Close()
	d.View(func(tx *Tx) error {
		r, _ := tx.GetURL("http://a/")
		h, _ := tx.GetHost("a")
		rb, _ := tx.GetRobots("http://a")
		u, _, ok := tx.Head("a")
		if r == nil || r.Status != 200 || !r.FetchedAt.Equal(now) || !h.LastRequest.Equal(now) || rb == nil || string(rb.Body) != "User-agent: *" || !ok || u != "http://a/b" {
			t.Errorf("after reopen: %+v %+v %+v %q %v", r, h, rb, u, ok)
		}
		return nil
	})
}

func BenchmarkEnqueue(b *testing.B) {
	d, _ := Open(filepath.Join(b.TempDir(), "s.db"), Options{NoSync: true})
	defer d.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.Update(func(tx *Tx) error {
			for j := 0; j < 100; j++ {
				u := fmt.Sprintf("http://h%d.test/p/%d", i%50, i)
				tx.PutURL(&URLRecord{URL: u, State: Queued}, "")
				tx.Enqueue(fmt.Sprintf("h%d.test", i%50), u)
				i++
			}
			return nil
		})
	}
}

func TestDueOrder(t *testing.T) {
	d := mustOpen(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d.Update(func(tx *Tx) error {
		tx.ScheduleDue(Due{At: t0.Add(3 * time.Second), Kind: DuePage, URL: "c"})
		tx.ScheduleDue(Due{At: t0.Add(1 * time.Second), Kind: DuePage, URL: "a"})
		tx.ScheduleDue(Due{At: t0.Add(2 * time.Second), Kind: DueSitemap, URL: "b"})
		return nil
	})
	d.Update(func(tx *Tx) error {
		if next, ok := tx.NextDue(); !ok || !next.Equal(t0.Add(time.Second)) {
			t.Errorf("NextDue %v %v", next, ok)
		}
		got, _ := tx.PopDue(t0.Add(2*time.Second), 10)
		if len(got) != 2 || got[0].URL != "a" || got[1].URL != "b" || got[1].Kind != DueSitemap || !got[1].At.Equal(t0.Add(2*time.Second)) {
			t.Errorf("PopDue %+v", got)
		}
		return nil
	})
	d.View(func(tx *Tx) error {
		if tx.CountDue() != 1 {
			t.Errorf("%d left", tx.CountDue())
		}
		return nil
	})
}

// TestSettings: named strings in the state file survive a reopen; "" deletes one.
func TestSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	for _, step := range []struct{ set, want string }{{"1h0m0s", "1h0m0s"}, {"", ""}} {
		d, err := Open(path, Options{NoBackup: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Update(func(tx *Tx) error { return tx.SetSetting("recrawl_interval", step.set) }); err != nil {
			t.Fatal(err)
		}
		d.Close()
		if d, err = Open(path, Options{NoBackup: true}); err != nil {
			t.Fatal(err)
		}
		var got string
		d.View(func(tx *Tx) error { got = tx.Setting("recrawl_interval"); return nil })
		d.Close()
		if got != step.want {
			t.Errorf("after setting %q and reopening: %q, want %q", step.set, got, step.want)
		}
	}
}

// TestSecondWriterRefusedAtOnce: while a crawl holds the file, a second
// Open fails with ErrLocked at once, not after its Timeout (a second run
// was refused after a second); readers, which are brief, are still
// waited for.
func TestSecondWriterRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	d, err := Open(path, Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, open := range []struct {
		name string
		f    func(string, Options) (*DB, error)
	}{{"Open", Open}, {"OpenReadOnly", OpenReadOnly}} {
		start := time.Now()
		_, err := open.f(path, Options{Timeout: 5 * time.Second})
		if took := time.Since(start); !errors.Is(err, ErrLocked) || took > 2*time.Second {
			t.Errorf("%s while a writer holds it: %v after %v; want ErrLocked at once", open.name, err, took)
		}
	}
	d.Close()
	ro, err := OpenReadOnly(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	start := time.Now()
	_, err = Open(path, Options{Timeout: 300 * time.Millisecond, NoBackup: true})
	if took := time.Since(start); !errors.Is(err, ErrLocked) || took < 200*time.Millisecond {
		t.Errorf("Open while a reader holds it: %v after %v; want ErrLocked after the 300ms timeout", err, took)
	}
}

// TestCreateErrorNamesTheFolder: a state file that cannot be created is
// reported with the folder the user gave, not the temporary name tried
// in it ("open /proc/x.db.new-2249717655: no such file or directory"),
// and the cause is kept for errors.Is.
func TestCreateErrorNamesTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	_, err := Open(filepath.Join(dir, "x.db"), Options{NoBackup: true})
	if err == nil || !strings.Contains(err.Error(), "cannot create a file in "+dir+": ") || strings.Contains(err.Error(), ".new-") ||
		!errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open in a missing folder: %v", err)
	}
}
