package crawltest

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// TestArrivalIsWhenBytesCame: a request that waits in the socket while
// the server is busy is logged as arrived when it came, not when its
// handler ran; consecutive requests on one kept-alive connection each get
// their own arrival.
func TestArrivalIsWhenBytesCame(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kernel receive timestamps are read on Linux only; elsewhere Arrived is the handler's start")
	}
	w := NewWeb()
	defer w.Close()
	const think = 150 * time.Millisecond
	h := w.AddHost("a", map[string]*Page{"/slow": {Body: "x", Delay: think}, "/next": {Body: "y"}})
	conn, err := net.Dial("tcp", h.Authority())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	var sent []time.Time
	// Two requests pipelined on purpose: the second waits in the socket
	// while the first is served (think time), so its handler starts late.
	for _, p := range []string{"/slow", "/next"} {
		sent = append(sent, time.Now())
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", p)
		if p == "/slow" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	for range 2 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	log := h.Log()
	if len(log) != 2 {
		t.Fatalf("log %+v", log)
	}
	for i, r := range log {
		if d := r.Arrived.Sub(sent[i]); d < 0 || d > 20*time.Millisecond {
			t.Errorf("%s arrived %v after it was sent, want within 20ms", r.Path, d)
		}
	}
	if late := log[1].Start.Sub(log[1].Arrived); late < 80*time.Millisecond {
		t.Errorf("/next's handler started %v after it arrived, want about 100ms (it waited for /slow)", late)
	}
}
