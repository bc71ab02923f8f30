package fetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestTrace: a request's write time and IP, and the one note of the write,
// on a fresh connection and on a kept-alive one.
func TestTrace(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // the answer comes later than the write
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	f := New(Options{UserAgent: "t", AllowPrivate: true})
	defer f.Close()
	for _, name := range []string{"fresh connection", "kept-alive connection"} {
		t.Run(name, func(t *testing.T) {
			notes := make(chan time.Time, 4)
			before := time.Now()
			ctx, trace := NewTrace(context.Background(), time.Now, func(at time.Time) { notes <- at })
			if _, err := f.Fetch(ctx, Request{URL: srv.URL + "/"}); err != nil {
				t.Fatal(err)
			}
			after := time.Now()
			sent := trace.Sent()
			if sent.Before(before) || !sent.Before(after.Add(-15*time.Millisecond)) {
				t.Errorf("sent at %v: not between the call (%v) and the answer (%v less the server's 20 ms)", sent, before, after)
			}
			if ip := trace.IP(); ip != "127.0.0.1" {
				t.Errorf("IP %q, want 127.0.0.1", ip)
			}
			if len(notes) != 1 {
				t.Fatalf("%d notes of the write, want 1", len(notes))
			}
			if at := <-notes; !at.Equal(sent) && at.After(sent) {
				t.Errorf("noted %v, after the write %v", at, sent)
			}
		})
	}
}

// TestTraceWithoutNotify: nobody asked to hear of the write, and a
// connection the Fetcher did not dial still has WroteRequest's time.
func TestTraceWithoutNotify(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, trace := NewTrace(context.Background(), time.Now, nil)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if trace.Sent().IsZero() || trace.IP() == "" {
		t.Errorf("sent %v ip %q: not traced", trace.Sent(), trace.IP())
	}
	var never Trace
	if !never.Sent().IsZero() || never.IP() != "" {
		t.Error("an untraced request has a write time or IP")
	}
}
