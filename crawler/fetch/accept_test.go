package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAcceptTypes: a 2xx response of a type AcceptTypes does not list is
// cut after its headers; listed types (and wildcards), responses without
// a type, and non-2xx answers are read as before.
func TestAcceptTypes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct, status := r.URL.Query().Get("ct"), 200
		if r.URL.Query().Get("status") != "" {
			fmt.Sscan(r.URL.Query().Get("status"), &status)
		}
		if ct != "" {
			w.Header()["Content-Type"] = []string{ct}
		} else {
			w.Header()["Content-Type"] = nil // no sniffing
		}
		w.WriteHeader(status)
		fmt.Fprint(w, "body")
	}))
	defer srv.Close()
	f := New(Options{AllowPrivate: true, AcceptTypes: []string{"text/html", "image/*"}})
	defer f.Close()
	for _, c := range []struct {
		query string
		cut   bool
	}{
		{"ct=text/html;+charset=utf-8", false},
		{"ct=TEXT/HTML", false},
		{"ct=image/png", false},
		{"ct=application/zip", true},
		{"ct=text/plain", true},
		{"", false},
		{"ct=application/zip&status=404", false},
	} {
		r, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/?" + c.query})
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if r.Unaccepted != c.cut || (len(r.Body) == 0) != c.cut {
			t.Errorf("%s: unaccepted %v with %d body bytes, want cut %v", c.query, r.Unaccepted, len(r.Body), c.cut)
		}
	}
	all := New(Options{AllowPrivate: true})
	defer all.Close()
	if r, err := all.Fetch(context.Background(), Request{URL: srv.URL + "/?ct=application/zip"}); err != nil || r.Unaccepted || string(r.Body) != "body" {
		t.Errorf("no accept_types: every type is read; got %+v %v", r, err)
	}
}
