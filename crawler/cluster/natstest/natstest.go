// Package natstest starts NATS servers for tests: Debian's nats-server as
// an external three-server JetStream cluster on loopback, as users deploy
// it. Without nats-server the tests that need it are skipped when run by
// hand (saying so) and fail under CI=true, where .ci/run installs it.
package natstest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// serverBinary finds Debian's nats-server (in /usr/sbin, which a
// non-root PATH may lack). Without it the test is skipped when run by hand
// and fails under CI=true, where .ci/run installs it.
func serverBinary(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"nats-server", "/usr/sbin/nats-server"} {
		if bin, err := exec.LookPath(p); err == nil {
			return bin
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("nats-server is not installed; .ci/run installs it with apt-get install -y nats-server")
	}
	t.Skip("nats-server is not installed (apt-get install nats-server): no external cluster to test against")
	return ""
}

// MustNATSCluster starts three nats-server processes as one JetStream
// cluster on loopback, each with its store in a temporary directory, waits
// until JetStream answers on each, and returns their client URLs. The
// servers get SIGTERM when the test ends.
func MustNATSCluster(t testing.TB) []string {
	t.Helper()
	bin := serverBinary(t)
	ports := FreePorts(t, 6)
	dir := t.TempDir()
	var routes []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[3+i]))
	}
	var urls []string
	for i := range 3 {
		conf := filepath.Join(dir, fmt.Sprintf("n%d.conf", i))
		text := fmt.Sprintf(`server_name: n%d
listen: 127.0.0.1:%d
jetstream { store_dir: %q }
cluster {
  name: politecrawl-test
  listen: 127.0.0.1:%d
  routes: [%s]
}
`, i, ports[i], filepath.Join(dir, fmt.Sprintf("n%d", i)), ports[3+i], strings.Join(routes, ", "))
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		startProcess(t, bin, conf, filepath.Join(dir, fmt.Sprintf("n%d.log", i)))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	WaitJetStream(t, urls, filepath.Join(dir, "n0.log"))
	return urls
}

// FreePorts reserves n distinct free loopback ports (free when it returns:
// a race with other processes is possible but unlikely).
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func startProcess(t testing.TB, bin, conf, logPath string) {
	t.Helper()
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", conf)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// WaitJetStream waits until every server answers JetStream requests, which
// in a cluster means a meta leader has been elected.
func WaitJetStream(t testing.TB, urls []string, logPath string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, u := range urls {
		for {
			err := jetStreamReady(ctx, u)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				log, _ := os.ReadFile(logPath) // none for embedded servers
				t.Fatalf("JetStream on %s not ready: %v\n%s", u, err, log)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func jetStreamReady(ctx context.Context, url string) error {
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}
