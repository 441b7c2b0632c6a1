package controllers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/pipeline"
	"tcs.dev/tcs/internal/results"
	"tcs.dev/tcs/internal/testenv"
)

// The environment of the child process of TestArchiveSurvivesKill: when archiveChildEnv names
// a step (put or mark), the test binary is an archiver that kills itself with SIGKILL right
// after that step.
const (
	archiveChildEnv      = "TCS_ARCHIVE_CRASH_STEP"
	archiveKubeconfigEnv = "TCS_ARCHIVE_CRASH_KUBECONFIG"
	archiveNamespaceEnv  = "TCS_ARCHIVE_CRASH_NAMESPACE"
	archiveDSNEnv        = "TCS_ARCHIVE_CRASH_DSN"
	archiveBlobsEnv      = "TCS_ARCHIVE_CRASH_BLOBS"
)

// runArchiveChild runs the archiver against the test's control plane and stores until it
// kills itself after the step its environment names.
func runArchiveChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "archive child:", err); return 2 }
	ctx := context.Background()
	ns := os.Getenv(archiveNamespaceEnv)
	mgr, err := testenv.NewChildManager(os.Getenv(archiveKubeconfigEnv), ns)
	if err != nil {
		return fail(err)
	}
	if err := indexEndpoints(mgr); err != nil {
		return fail(err)
	}
	rs, err := results.Open(ctx, os.Getenv(archiveDSNEnv))
	if err != nil {
		return fail(err)
	}
	blobs, err := blob.OpenDir(os.Getenv(archiveBlobsEnv))
	if err != nil {
		return fail(err)
	}
	die := func(step string) func(*tcsv1.Transcript) {
		return func(t *tcsv1.Transcript) {
			fmt.Printf("%s %s\n", step, t.Spec.ID)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	r := &ArchiveReconciler{Client: mgr.GetClient(), Results: rs, Blobs: blobs, After: 50 * time.Millisecond}
	switch step := os.Getenv(archiveChildEnv); step {
	case "put":
		r.afterPut = die(step)
	case "mark":
		r.afterMark = die(step)
	default:
		return fail(fmt.Errorf("unknown step %q", step))
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return fail(err)
	}
	if err := mgr.Start(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// TestArchiveSurvivesKill kills the archiver with SIGKILL right after each step of archiving
// (the record written; the resource marked) and checks that a reader finds the transcript all
// along, that a restarted archiver finishes the move, and that nothing is lost or doubled.
func TestArchiveSurvivesKill(t *testing.T) {
	for _, step := range []string{"put", "mark"} {
		t.Run(step, func(t *testing.T) {
			e := newArchiveEnv(t, "")
			ctx := context.Background()
			blobDir := t.TempDir()
			blobs, err := blob.OpenDir(blobDir)
			if err != nil {
				t.Fatal(err)
			}
			e.blobs = blobs
			org := ids.New("org")
			tr := e.finishedTranscript(t, org, nil)

			// A reader, as the API reads: the resource, then the record.
			var misses, reads atomic.Int64
			stopReading := make(chan struct{})
			readerDone := make(chan struct{})
			go func() {
				defer close(readerDone)
				for {
					select {
					case <-stopReading:
						return
					default:
					}
					reads.Add(1)
					err := e.c.Get(ctx, client.ObjectKeyFromObject(tr), &tcsv1.Transcript{})
					if apierrors.IsNotFound(err) {
						if _, err := e.results.Get(ctx, tr.Spec.ID, results.GetOptions{}); errors.Is(err, results.ErrNotFound) {
							misses.Add(1)
						}
					}
					time.Sleep(5 * time.Millisecond)
				}
			}()

			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), archiveChildEnv+"="+step, archiveKubeconfigEnv+"="+kubeconfig,
				archiveNamespaceEnv+"="+e.ns, archiveDSNEnv+"="+e.dsn, archiveBlobsEnv+"="+blobDir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			reached := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					reached <- sc.Text()
				}
				close(reached)
			}()
			select {
			case line, ok := <-reached:
				if !ok || line != step+" "+tr.Spec.ID {
					t.Fatalf("the child stopped without reaching %s (%q): %s", step, line, stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("the child did not reach %s: %s", step, stderr.String())
			}
			werr := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(werr, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child ended with %v, not SIGKILL", werr)
			}

			// Where the kill left it: the record written, the resource still there.
			rec := e.record(t, tr)
			if rec == nil {
				t.Fatal("no record after the put")
			}
			live := &tcsv1.Transcript{}
			if err := e.c.Get(ctx, client.ObjectKeyFromObject(tr), live); err != nil {
				t.Fatalf("the resource after a kill at %s: %v", step, err)
			}
			if marked := live.Annotations[tcsv1.AnnotationArchivedAt] != ""; marked != (step == "mark") {
				t.Fatalf("after a kill at %s the resource is marked %v", step, marked)
			}

			// A restarted archiver finishes the move.
			stop := e.run(t, 50*time.Millisecond, nil)
			waitUntil(t, "the restarted archiver moves it", func() bool { return e.gone(t, tr) })
			stop()
			close(stopReading)
			<-readerDone
			if n := misses.Load(); n > 0 {
				t.Fatalf("a reader did not find the transcript %d times of %d", n, reads.Load())
			}
			page, err := e.results.List(ctx, org, results.ListOptions{Limit: 10, IncludeDeleted: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 1 || page.Records[0].ID != tr.Spec.ID {
				t.Fatalf("records of the organization: %d, want the one", len(page.Records))
			}
			got := page.Records[0]
			if got.Status != tcsv1.PhaseCompleted || got.Transcript.Status.ContentRef != tr.Status.ContentRef || got.Transcript.Annotations[tcsv1.AnnotationArchivedAt] != "" {
				t.Fatalf("the record after the move: %+v", got.Transcript.Status)
			}
			for _, k := range []string{pipeline.KeysFor(org, tr.Spec.ID).Input, tr.Status.ContentRef, tr.Status.ChangesRef} {
				if ok, err := blobs.Exists(ctx, k); err != nil || !ok {
					t.Errorf("object %s after the move: exists %v, %v", k, ok, err)
				}
			}
		})
	}
}
