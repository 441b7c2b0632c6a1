package blob

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// Credentials of the test S3 server.
const (
	testAccessKey = "tcs-test-access"
	testSecretKey = "tcs-test-secret-0123456789"
)

// testS3 is the S3-compatible server that TestMain starts for the package's tests.
var testS3 *s3Server

func TestMain(m *testing.M) {
	srv, err := startS3Server()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: internal/platform/blob tests need an S3-compatible server: %v\n", err)
		os.Exit(1)
	}
	testS3 = srv
	code := m.Run()
	if err := srv.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the S3 server: %v\n", err)
	}
	os.Exit(code)
}

// s3Server is a versitygw process serving a temporary directory on a loopback port.
type s3Server struct {
	endpoint string // e.g. http://127.0.0.1:40123
	dir      string
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has exited
	waitErr  error         // the result of cmd.Wait, valid once exited is closed
	log      *strings.Builder
}

// startS3Server starts versitygw on a free loopback port over a new temporary directory and
// waits until it answers. It uses the sidecar metadata mode where the directory lacks user
// extended attributes.
func startS3Server() (*s3Server, error) {
	bin, err := testenv.Tool("TCS_S3SERVER", "versitygw", "s3server")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tcs-blob-s3-")
	if err != nil {
		return nil, err
	}
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o750); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	args := []string{"--access", testAccessKey, "--secret", testSecretKey}
	var lastErr error
	// A port found free can be taken before versitygw binds it: try a few times.
	for range 3 {
		port, err := freePort()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		a := append(slices.Clone(args), "--port", "127.0.0.1:"+port, "posix")
		if !userXattrs(data) {
			a = append(a, "--sidecar", meta)
		}
		a = append(a, data)
		srv := &s3Server{endpoint: "http://127.0.0.1:" + port, dir: dir, log: new(strings.Builder), exited: make(chan struct{})}
		srv.cmd = exec.Command(bin, a...)
		srv.cmd.Stdout, srv.cmd.Stderr = srv.log, srv.log
		if err := srv.cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("starting %s: %w", bin, err)
		}
		go func() { srv.waitErr = srv.cmd.Wait(); close(srv.exited) }()
		if lastErr = srv.waitReady(30 * time.Second); lastErr == nil {
			return srv, nil
		}
		_ = srv.kill()
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

// waitReady polls the server until it answers HTTP, it exits, or timeout passes.
func (s *s3Server) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("versitygw exited (%w); its output:\n%s", s.waitErr, s.log)
		default:
		}
		if resp, err := client.Get(s.endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("versitygw did not answer on %s within %v", s.endpoint, timeout)
}

// kill ends the process at once and waits for it.
func (s *s3Server) kill() error {
	_ = s.cmd.Process.Kill()
	<-s.exited
	return nil
}

// stop asks the server to shut down, kills it when it lingers, and removes its directory.
func (s *s3Server) stop() error {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.kill()
	}
	return os.RemoveAll(s.dir)
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// client returns an S3 client of the test server.
func (s *s3Server) client() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
	})
}

// newBucket creates a bucket of the test server named after the running test, and returns
// the store URL that opens it.
func (s *s3Server) newBucket(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("tcs-%x", sha256.Sum256([]byte(t.Name())))[:24]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
	return "s3://" + name + "?endpoint=" + s.endpoint + "&region=us-east-1&use_path_style=true"
}

// userXattrs reports whether files in dir can carry user extended attributes, which
// versitygw's posix backend keeps its metadata in.
func userXattrs(dir string) bool {
	f, err := os.CreateTemp(dir, ".xattr-probe-")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	return setUserXattr(name) == nil
}
