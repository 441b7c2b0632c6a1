package testenv

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3 is an S3-compatible server (versitygw) of a test, with one bucket.
type S3 struct {
	// Endpoint is its loopback URL, e.g. http://127.0.0.1:40123.
	Endpoint string
	// AccessKey and SecretKey are its credentials.
	AccessKey, SecretKey string
	// Bucket exists on it.
	Bucket string
}

// StoreURL returns the --store URL of the bucket.
func (s *S3) StoreURL() string {
	return "s3://" + s.Bucket + "?endpoint=" + s.Endpoint + "&region=us-east-1&use_path_style=true"
}

// StartS3 starts versitygw ($TCS_S3SERVER, else what `make s3server` built) on a free
// loopback port over a temporary directory, creates bucket on it, and stops it when t ends.
// It fails t, never skips, when there is no versitygw.
func StartS3(t testing.TB, bucket string) *S3 {
	t.Helper()
	bin, err := Tool("TCS_S3SERVER", "versitygw", "s3server")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	srv := &S3{AccessKey: "tcs-test-access", SecretKey: "tcs-test-secret-0123456789", Bucket: bucket}
	for attempt := 0; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free loopback port: %v", err)
		}
		addr := l.Addr().String()
		l.Close()
		var out SyncBuffer
		cmd := exec.Command(bin, "--access", srv.AccessKey, "--secret", srv.SecretKey, "--port", addr, "posix", "--sidecar", meta, data)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() {
			_ = cmd.Process.Kill()
			<-exited
		}
		if waitAnswers(addr, exited) {
			t.Cleanup(stop)
			srv.Endpoint = "http://" + addr
			break
		}
		stop()
		// A port found free can be taken before versitygw binds it: try a few times.
		if attempt == 2 {
			t.Fatalf("versitygw did not serve on %s:\n%s", addr, out.String())
		}
	}
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, "")})
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("creating bucket %s: %v", bucket, err)
	}
	return srv
}

// waitAnswers waits up to 20 s for an HTTP server on addr; false when the process exited first
// or it did not answer.
func waitAnswers(addr string, exited <-chan struct{}) bool {
	c := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if res, err := c.Get("http://" + addr); err == nil {
			res.Body.Close()
			return true
		}
		select {
		case <-exited:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}
