package contentuse

import (
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/politecrawl/crawler/fetch"
	"github.com/politecrawl/politecrawl/storage"
)

var (
	t0      = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	reserve = []byte(`[{"location":"/*","tdm-reservation":1}]`)
)

func mustRep(t *testing.T, body []byte) *TDMRep {
	t.Helper()
	rep, err := ParseTDMRep(body)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSites(t *testing.T) {
	s := NewSites(time.Hour)
	if !s.Ask("http://a.test", t0) || s.Ask("http://a.test", t0) {
		t.Fatal("Ask: want true once, then false")
	}
	if st := s.Statement("http://a.test", "/x"); !st.Empty() {
		t.Errorf("asked, no answer yet: %v", st.Prefs)
	}
	s.Set("http://a.test", Answer{Rep: mustRep(t, reserve), Body: reserve, Status: 200, At: t0})
	if st := s.Statement("http://a.test", "/x"); st.Prefs[TDM] != No {
		t.Errorf("Statement = %v, want tdm no", st.Prefs)
	}
	if st := s.Statement("http://b.test", "/x"); !st.Empty() {
		t.Errorf("another origin: %v", st.Prefs)
	}
	if !s.Ask("http://c.test", t0) {
		t.Fatal("Ask c: want true")
	}
	s.Forget("http://c.test")
	if !s.Ask("http://c.test", t0) {
		t.Error("Ask after Forget: want true")
	}
}

// An answer decides for the TTL, or its shorter max-age, from when its
// request was sent; then the file is asked for again, the old answer
// standing until a new one comes.
func TestSitesFreshness(t *testing.T) {
	for _, tc := range []struct {
		name   string
		maxAge time.Duration
		fresh  time.Duration // asked again from t0 plus this
	}{
		{"the TTL", 0, time.Hour},
		{"a shorter max-age", 10 * time.Minute, 10 * time.Minute},
		{"a longer max-age: the TTL", 5 * time.Hour, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const o = "http://a.test"
			s := NewSites(time.Hour)
			s.Ask(o, t0)
			s.Set(o, Answer{Rep: mustRep(t, reserve), Body: reserve, Status: 200, At: t0, MaxAge: tc.maxAge})
			if s.Ask(o, t0.Add(tc.fresh-time.Second)) {
				t.Errorf("Ask %v after: true, want false (fresh)", tc.fresh-time.Second)
			}
			if !s.Ask(o, t0.Add(tc.fresh)) {
				t.Errorf("Ask %v after: false, want true (stale)", tc.fresh)
			}
			if st := s.Statement(o, "/x"); st.Prefs[TDM] != No {
				t.Errorf("stale, asked again: Statement = %v, want the old answer's tdm no", st.Prefs)
			}
		})
	}
}

// A server failure (5xx, 429, network) leaves the file to be asked for
// again, up to tries requests in a row; then it is taken as absent (or as
// the last answer said) for the TTL.
func TestSitesFailed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool // an earlier answer, now stale, reserved everything
	}{
		{"never answered", false},
		{"a stale answer stands", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const o = "http://a.test"
			s := NewSites(time.Hour)
			now := t0
			if tc.before {
				s.Ask(o, now)
				s.Set(o, Answer{Rep: mustRep(t, reserve), Body: reserve, Status: 200, At: now})
				now = now.Add(2 * time.Hour)
			}
			for i, want := range []bool{true, true, false} {
				if !s.Ask(o, now) {
					t.Fatalf("step %d: Ask = false, want true", i)
				}
				if again := s.Failed(o, 3, now); again != want {
					t.Errorf("step %d: Failed = %v, want %v", i, again, want)
				}
				now = now.Add(time.Second)
			}
			if s.Ask(o, now) {
				t.Error("Ask after the tries were spent: want false")
			}
			if !s.Ask(o, now.Add(time.Hour)) {
				t.Error("Ask a TTL after the tries were spent: want true")
			}
			if st := s.Statement(o, "/x"); (st.Prefs[TDM] == No) != tc.before {
				t.Errorf("Statement = %v, want the earlier answer's: %v", st.Prefs, tc.before)
			}
			if tc.before == (s.Record(o) == nil) {
				t.Errorf("Record = %+v: a failure changes nothing kept", s.Record(o))
			}
		})
	}
}

// Record keeps the server's answers (the file's body only when it was
// read and parsed), and Restore brings them back: fresh, an answer is not
// asked for again; stale, it is, and stands meanwhile.
func TestSitesRecordRestore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a        Answer
		want     *storage.TDMRepRecord // nil: nothing kept
		reserved bool
	}{
		{"the file", Answer{Rep: mustRep(t, reserve), Body: reserve, Status: 200, At: t0},
			&storage.TDMRepRecord{FetchedAt: t0, ExpiresAt: t0.Add(time.Hour), Status: 200, Body: reserve}, true},
		{"none", Answer{Status: 404, At: t0, MaxAge: time.Minute},
			&storage.TDMRepRecord{FetchedAt: t0, ExpiresAt: t0.Add(time.Minute), Status: 404}, false},
		{"broken", Answer{Status: 200, Body: []byte("nope"), Reason: "tdmrep.json: bad", At: t0},
			&storage.TDMRepRecord{FetchedAt: t0, ExpiresAt: t0.Add(time.Hour), Status: 200, Error: "tdmrep.json: bad"}, false},
		{"no request reached the server", Answer{Reason: "refused", At: t0}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const o = "http://a.test"
			s := NewSites(time.Hour)
			s.Ask(o, t0)
			s.Set(o, tc.a)
			rec := s.Record(o)
			if (rec == nil) != (tc.want == nil) || rec != nil && (!rec.FetchedAt.Equal(tc.want.FetchedAt) ||
				!rec.ExpiresAt.Equal(tc.want.ExpiresAt) || rec.Status != tc.want.Status ||
				string(rec.Body) != string(tc.want.Body) || rec.Error != tc.want.Error) {
				t.Fatalf("Record = %+v, want %+v", rec, tc.want)
			}
			if rec == nil {
				return
			}
			r := NewSites(time.Hour)
			r.Restore(o, rec)
			if r.Ask(o, rec.ExpiresAt.Add(-time.Second)) {
				t.Error("restored, fresh: Ask = true, want false")
			}
			if st := r.Statement(o, "/x"); (st.Prefs[TDM] == No) != tc.reserved {
				t.Errorf("restored: Statement = %v, want reserved %v", st.Prefs, tc.reserved)
			}
			if !r.Ask(o, rec.ExpiresAt) {
				t.Error("restored, stale: Ask = false, want true")
			}
			if st := r.Statement(o, "/x"); (st.Prefs[TDM] == No) != tc.reserved {
				t.Errorf("restored, asked again: Statement = %v, want the old answer's (reserved %v)", st.Prefs, tc.reserved)
			}
		})
	}
}

func TestReadTDMRep(t *testing.T) {
	resp := func(status int, body string, truncated bool, cc string) *fetch.Response {
		h := http.Header{}
		if cc != "" {
			h.Set("Cache-Control", cc)
		}
		return &fetch.Response{Status: status, Body: []byte(body), Truncated: truncated, Header: h}
	}
	for _, tc := range []struct {
		name    string
		resp    *fetch.Response
		err     error
		want    Answer // Rep compared as set or not
		hasRep  bool
		outcome string // for the metrics
	}{
		{"the file", resp(200, string(reserve), false, "max-age=60"),
			nil, Answer{Status: 200, Body: reserve, MaxAge: time.Minute}, true, "found"},
		{"none", resp(404, "not found", false, ""), nil, Answer{Status: 404}, false, "absent"},
		{"a redirect", resp(301, "", false, ""), nil, Answer{Status: 301}, false, "absent"},
		{"forbidden", resp(403, "", false, ""), nil, Answer{Status: 403}, false, "absent"},
		{"broken", resp(200, "{", false, ""), nil, Answer{Status: 200, Reason: "tdmrep.json: unexpected end of JSON input"}, false, "unusable"},
		{"truncated", resp(200, "[", true, ""), nil, Answer{Status: 200, Reason: "tdmrep.json: truncated at 1 bytes"}, false, "unusable"},
		{"too many requests", resp(429, "", false, ""), nil, Answer{Status: 429}, false, "error"},
		{"a server error", resp(503, "", false, ""), nil, Answer{Status: 503}, false, "error"},
		{"no answer", nil, errors.New("connection refused"), Answer{}, false, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ReadTDMRep(tc.resp, tc.err, t0)
			if (a.Rep != nil) != tc.hasRep || a.Status != tc.want.Status || a.Reason != tc.want.Reason ||
				string(a.Body) != string(tc.want.Body) || a.MaxAge != tc.want.MaxAge || !a.At.Equal(t0) {
				t.Errorf("ReadTDMRep = %+v, want %+v (a file: %v)", a, tc.want, tc.hasRep)
			}
			if got := a.Outcome(); got != tc.outcome {
				t.Errorf("Outcome() = %q, want %q", got, tc.outcome)
			}
		})
	}
}

// Save writes an answer's record and lets go of it: every origin's file
// body stayed in memory for the whole run before. Restore keeps none
// either (the state file has it).
func TestSitesSaveLetsGo(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "s.db"), storage.Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const o = "http://a.test"
	s := NewSites(time.Hour)
	s.Ask(o, t0)
	s.Set(o, Answer{Rep: mustRep(t, reserve), Body: reserve, Status: 200, At: t0})
	if err := db.Update(func(tx *storage.Tx) error { return s.Save(tx, o) }); err != nil {
		t.Fatal(err)
	}
	if rec := s.Record(o); rec != nil {
		t.Errorf("after Save, Record = %+v: the body is still held", rec)
	}
	var stored *storage.TDMRepRecord
	db.View(func(tx *storage.Tx) error { stored, err = tx.GetTDMRep(o); return err })
	if err != nil || stored == nil || string(stored.Body) != string(reserve) {
		t.Fatalf("stored %+v, %v; want the file", stored, err)
	}
	r := NewSites(time.Hour)
	r.Restore(o, stored)
	if rec := r.Record(o); rec != nil {
		t.Errorf("after Restore, Record = %+v: want nothing held", rec)
	}
	if st := r.Statement(o, "/x"); st.Prefs[TDM] != No {
		t.Errorf("restored Statement = %v, want the file's reservation", st.Prefs)
	}
}
