package fetch

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"
)

// TestMarkSentIsAfterTheWrite: the delay between two requests to a host
// counts from when the first bytes of the earlier one were written to the
// connection. Over net.Pipe a write returns only once the server reads,
// and this server waits 50 ms before reading: the mark must not be before
// that (httptrace's WroteRequest fires when the request is buffered, and
// was what the crawler used).
func TestMarkSentIsAfterTheWrite(t *testing.T) {
	const hold = 50 * time.Millisecond
	f := New(Options{UserAgent: "t", AllowPrivate: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				time.Sleep(hold)
				req, err := http.ReadRequest(bufio.NewReader(server))
				if err != nil {
					return
				}
				req.Body.Close()
				server.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
			}()
			return client, nil
		}})
	defer f.Close()
	var mark SentMark
	var wrote time.Time
	var notes []time.Time // MarkSentNotify's calls, before the response came
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			mark = MarkSentNotify(info.Conn, func(at time.Time) { notes = append(notes, at) })
		},
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Now() },
	})
	start := time.Now()
	resp, err := f.Fetch(ctx, Request{URL: "http://pipe.test/"})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "ok" {
		t.Fatalf("body %q", resp.Body)
	}
	sent := mark.Time()
	if sent.IsZero() {
		t.Fatal("no write seen on the connection the Fetcher dialled")
	}
	if d := sent.Sub(start); d < hold {
		t.Errorf("marked sent %v after the start, before the server could have the bytes (%v)", d, hold)
	}
	if len(notes) != 1 || !notes[0].Equal(sent) {
		t.Errorf("notified %v, want once with the mark's time %v", notes, sent)
	}
	t.Logf("WroteRequest came %v after the start, the write returned after %v", wrote.Sub(start), sent.Sub(start))
	if m := MarkSent(&net.TCPConn{}); !m.Time().IsZero() {
		t.Error("a connection the Fetcher did not dial gave a time")
	}
}
