package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestQueueKeyForm(t *testing.T) {
	for _, tc := range []struct {
		id, seq uint64
		len     int
	}{
		{1, 0, 4}, {1, 1, 4}, {1, 255, 4}, {1, 256, 5}, {127, 1 << 23, 6},
		{128, 10_000_000, 7}, {16383, 1<<24 - 1, 7}, {16384, 1 << 24, 9},
		{math.MaxUint64, math.MaxUint64, 20},
	} {
		k := queueKeyFor(tc.id, tc.seq)
		id, seq, ok := parseQueueKeyV2(k)
		if !ok || id != tc.id || seq != tc.seq || len(k) != tc.len {
			t.Errorf("queueKeyFor(%d, %d) = % x (%d bytes, want %d): parses as %d, %d, %v", tc.id, tc.seq, k, len(k), tc.len, id, seq, ok)
		}
		if !bytes.HasPrefix(k, queueHostPrefix(tc.id)) {
			t.Errorf("queueKeyFor(%d, %d) = % x lacks the host prefix", tc.id, tc.seq, k)
		}
	}
}

// TestQueueKeyOrder: a host's keys sort in sequence order, whatever the
// sequences' byte lengths, and stay in the host's key range.
func TestQueueKeyOrder(t *testing.T) {
	seqs := []uint64{0, 1, 2, 255, 256, 65535, 65536, 1 << 40, math.MaxUint64}
	for _, id := range []uint64{1, 127, 128, 300} {
		var keys [][]byte
		for _, s := range seqs {
			keys = append(keys, queueKeyFor(id, s))
		}
		if !slices.IsSortedFunc(keys, bytes.Compare) {
			t.Errorf("host %d: keys not in sequence order", id)
		}
	}
}

func TestQueueKeyDamaged(t *testing.T) {
	for _, k := range [][]byte{
		nil, {}, {queueKeyV2}, {queueKeyV2, 0, 1, 1}, // id 0
		{queueKeyV2, 0x80},                                   // id cut short
		{queueKeyV2, 1},                                      // no sequence
		{queueKeyV2, 1, 2, 1},                                // sequence shorter than its length
		{queueKeyV2, 1, 1, 1, 1},                             // longer
		{queueKeyV2, 1, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1},        // 9 bytes
		{queueKeyV2, 1, 0},                                   // length 0
		[]byte("a.test\x00\x00\x00\x00\x00\x00\x00\x00\x01"), // old form
	} {
		if id, seq, ok := parseQueueKeyV2(k); ok {
			t.Errorf("% x parses as %d, %d", k, id, seq)
		}
	}
}

// FuzzQueueKey: any key parses without panic, and what parses is exactly
// the key queueKeyFor gives (so it lies in its host's range, in order).
func FuzzQueueKey(f *testing.F) {
	f.Add(queueKeyFor(5, 1000))
	f.Add([]byte("a.test\x00\x00\x00\x00\x00\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, k []byte) {
		id, seq, ok := parseQueueKeyV2(k)
		queueKeyHost(nil, k)
		if ok && !bytes.Equal(queueKeyFor(id, seq), k) {
			t.Fatalf("% x parses as %d, %d, whose key is % x", k, id, seq, queueKeyFor(id, seq))
		}
	})
}

// TestQueueIDAllocatedWithEnqueue: a host's id lands with its first
// Enqueue or not at all.
func TestQueueIDAllocatedWithEnqueue(t *testing.T) {
	d := mustOpen(t)
	boom := errors.New("boom")
	err := d.Update(func(tx *Tx) error {
		if err := tx.Enqueue("a.test", "https://a.test/1"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	err = d.View(func(tx *Tx) error {
		if id, ok, err := tx.queueHostID("a.test", false); ok || err != nil {
			return fmt.Errorf("id %d after a rolled back Enqueue (%v)", id, err)
		}
		if n := tx.tx.Bucket(bucketQHosts).Stats().KeyN; n != 0 {
			return fmt.Errorf("%d ids after a rolled back Enqueue", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, d, "https://a.test/1", "https://a.test/2", "https://b.test/1")
	err = d.View(func(tx *Tx) error {
		a, _, _ := tx.queueHostID("a.test", false)
		b, _, _ := tx.queueHostID("b.test", false)
		if a != 1 || b != 2 {
			return fmt.Errorf("ids a=%d b=%d, want 1 and 2", a, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mustEnqueue queues urls (on hosts of 6 letters) in one transaction.
func mustEnqueue(t *testing.T, d *DB, urls ...string) {
	t.Helper()
	err := d.Update(func(tx *Tx) error {
		for _, u := range urls {
			if err := tx.Enqueue(hostOf(u), u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hostOf(u string) string { return u[len("https://"):][:6] }

// TestQueueMixedKeyForms: a file written with the old keys reads
// read-only, and once writable queues its hosts' new URLs under ids
// behind the old ones; every queue operation sees both.
func TestQueueMixedKeyForms(t *testing.T) {
	path, _ := mustOldStateFile(t) // a.test/1 and /2, seq 1 and 2, old keys
	d, err := OpenReadOnly(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = d.View(func(tx *Tx) error {
		if u, seq, ok := tx.Head("a.test"); !ok || u != "https://a.test/1" || seq != 1 {
			return fmt.Errorf("read-only head = %q, %d, %v", u, seq, ok)
		}
		if _, _, ok := tx.Head("b.test"); ok {
			return errors.New("read-only head of b.test")
		}
		return tx.ForEachQueued("b.test", func(uint64, string) error { return errors.New("b.test queued") })
	})
	d.Close()
	if err != nil {
		t.Fatal(err)
	}

	d, err = Open(path, Options{NoBackup: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	queued := func(tx *Tx, host string) []string {
		var got []string
		if err := tx.ForEachQueued(host, func(seq uint64, u string) error {
			got = append(got, fmt.Sprint(seq, " ", u))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	mustEnqueue(t, d, "https://a.test/3", "https://b.test/1")
	err = d.Update(func(tx *Tx) error {
		want := []string{"1 https://a.test/1", "2 https://a.test/2", "3 https://a.test/3"}
		if got := queued(tx, "a.test"); !reflect.DeepEqual(got, want) {
			return fmt.Errorf("a.test queue %q, want %q", got, want)
		}
		if got := queued(tx, "b.test"); !reflect.DeepEqual(got, []string{"4 https://b.test/1"}) {
			return fmt.Errorf("b.test queue %q", got)
		}
		hosts := map[string]int{}
		if err := tx.QueuedHosts(func(h string, n int) error { hosts[h] = n; return nil }); err != nil {
			return err
		}
		if !reflect.DeepEqual(hosts, map[string]int{"a.test": 3, "b.test": 1}) {
			return fmt.Errorf("queued hosts %v", hosts)
		}
		for _, want := range want { // drains old keys, then the new one
			u, seq, ok := tx.Head("a.test")
			if got := fmt.Sprint(seq, " ", u); !ok || got != want {
				return fmt.Errorf("head %q, %v, want %q", got, ok, want)
			}
			if err := tx.Dequeue("a.test", seq); err != nil {
				return err
			}
		}
		if u, _, ok := tx.Head("a.test"); ok {
			return fmt.Errorf("a.test head %q after draining", u)
		}
		return tx.Dequeue("a.test", 3) // gone: no error, no count change
	})
	if err != nil {
		t.Fatal(err)
	}
	err = d.View(func(tx *Tx) error {
		n := tx.tx.Bucket(bucketQueue).Stats().KeyN
		hosts := map[string]int{}
		tx.QueuedHosts(func(h string, n int) error { hosts[h] = n; return nil })
		if n != 1 || !reflect.DeepEqual(hosts, map[string]int{"b.test": 1}) {
			return fmt.Errorf("%d entries left, hosts %v", n, hosts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSalvageQueueIDs: salvage keeps entries under both key forms, and
// drops (then queues again) those whose host id no longer resolves.
func TestSalvageQueueIDs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
	}{
		{"healthy", func(*bolt.Tx) error { return nil }},
		{"id of host lost", func(tx *bolt.Tx) error { return tx.Bucket(bucketQHostIDs).Delete([]byte("b.test")) }},
		{"host of id lost", func(tx *bolt.Tx) error { return tx.Bucket(bucketQHosts).Delete(binaryID(1)) }},
		{"id garbled", func(tx *bolt.Tx) error { return tx.Bucket(bucketQHostIDs).Put([]byte("b.test"), []byte{0x80}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := mustOldStateFile(t)
			d, err := Open(path, Options{NoBackup: true, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			err = d.Update(func(tx *Tx) error {
				for _, u := range []string{"https://b.test/1", "https://b.test/2", "https://a.test/3"} {
					r := URLRecord{URL: u, State: Queued, DiscoveredVia: "link"}
					if err := tx.PutURL(&r, ""); err != nil {
						return err
					}
					if err := tx.Enqueue(hostOf(u), u); err != nil {
						return err
					}
				}
				return nil
			})
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			b, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = b.Update(tc.damage)
			b.Close()
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(t.TempDir(), "new.db")
			if _, err := Salvage(path, dst, Options{NoSync: true}); err != nil {
				t.Fatal(err)
			}
			d, err = Open(dst, Options{NoBackup: true, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			err = d.View(func(tx *Tx) error {
				got := map[string]bool{}
				for _, h := range []string{"a.test", "b.test"} {
					n := 0
					tx.QueuedHosts(func(host string, c int) error {
						if host == h {
							n = c
						}
						return nil
					})
					m := 0
					if err := tx.ForEachQueued(h, func(_ uint64, u string) error { got[u] = true; m++; return nil }); err != nil {
						return err
					}
					if m != n {
						return fmt.Errorf("%s: %d entries, count %d", h, m, n)
					}
				}
				for _, u := range []string{"https://a.test/1", "https://a.test/2", "https://a.test/3", "https://b.test/1", "https://b.test/2"} {
					if !got[u] {
						return fmt.Errorf("%s not queued after salvage (queued: %v)", u, got)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func binaryID(id uint64) []byte { return queueHostPrefix(id)[1:] }
