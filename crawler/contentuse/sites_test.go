package contentuse

import (
	"errors"
	"testing"

	"github.com/politecrawl/politecrawl/crawler/fetch"
)

var reserve = []byte(`[{"location":"/*","tdm-reservation":1}]`)

func mustRep(t *testing.T, body []byte) *TDMRep {
	t.Helper()
	rep, err := ParseTDMRep(body)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSites(t *testing.T) {
	s := NewSites()
	if !s.Ask("http://a.test") || s.Ask("http://a.test") {
		t.Fatal("Ask: want true once, then false")
	}
	if st := s.Statement("http://a.test", "/x"); !st.Empty() {
		t.Errorf("asked, no answer yet: %v", st.Prefs)
	}
	s.Set("http://a.test", Answer{Rep: mustRep(t, reserve), Status: 200})
	if st := s.Statement("http://a.test", "/x"); st.Prefs[TDM] != No {
		t.Errorf("Statement = %v, want tdm no", st.Prefs)
	}
	if st := s.Statement("http://b.test", "/x"); !st.Empty() {
		t.Errorf("another origin: %v", st.Prefs)
	}
	if s.Ask("http://a.test") {
		t.Error("Ask after Set: want false (answered)")
	}
	if !s.Ask("http://c.test") {
		t.Fatal("Ask c: want true")
	}
	s.Forget("http://c.test")
	if !s.Ask("http://c.test") {
		t.Error("Ask after Forget: want true")
	}
}

// A server failure (5xx, 429, network) leaves the file to be asked for
// again, up to tries requests in a row; then it is taken as absent.
func TestSitesFailed(t *testing.T) {
	const o = "http://a.test"
	s := NewSites()
	for i, want := range []bool{true, true, false} {
		if !s.Ask(o) {
			t.Fatalf("step %d: Ask = false, want true", i)
		}
		if again := s.Failed(o, 3); again != want {
			t.Errorf("step %d: Failed = %v, want %v", i, again, want)
		}
	}
	if s.Ask(o) {
		t.Error("Ask after the tries were spent: want false (taken as absent)")
	}
	if st := s.Statement(o, "/x"); !st.Empty() {
		t.Errorf("taken as absent: %v", st.Prefs)
	}
}

func TestReadTDMRep(t *testing.T) {
	resp := func(status int, body string, truncated bool) *fetch.Response {
		return &fetch.Response{Status: status, Body: []byte(body), Truncated: truncated}
	}
	for _, tc := range []struct {
		name   string
		resp   *fetch.Response
		err    error
		want   Answer // Rep compared as set or not
		hasRep bool
	}{
		{"the file", resp(200, string(reserve), false), nil, Answer{Status: 200}, true},
		{"none", resp(404, "not found", false), nil, Answer{Status: 404}, false},
		{"a redirect", resp(301, "", false), nil, Answer{Status: 301}, false},
		{"broken", resp(200, "{", false), nil, Answer{Status: 200, Reason: "tdmrep.json: unexpected end of JSON input"}, false},
		{"truncated", resp(200, "[", true), nil, Answer{Status: 200, Reason: "tdmrep.json: truncated at 1 bytes"}, false},
		{"no answer", nil, errors.New("connection refused"), Answer{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ReadTDMRep(tc.resp, tc.err)
			if (a.Rep != nil) != tc.hasRep || a.Status != tc.want.Status || a.Reason != tc.want.Reason {
				t.Errorf("ReadTDMRep = %+v, want %+v (a file: %v)", a, tc.want, tc.hasRep)
			}
		})
	}
}
