package controllers

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// The environment of the child process of TestArchiveSurvivesKill and
// TestDeliveryArchiveSurvivesKill: when archiveChildEnv names a step (put or mark), the test
// binary is an archiver that kills itself with SIGKILL right after that step.
const (
	archiveChildEnv      = "TCS_ARCHIVE_CRASH_STEP"
	archiveKubeconfigEnv = "TCS_ARCHIVE_CRASH_KUBECONFIG"
	archiveNamespaceEnv  = "TCS_ARCHIVE_CRASH_NAMESPACE"
	archiveDSNEnv        = "TCS_ARCHIVE_CRASH_DSN"
	archiveBlobsEnv      = "TCS_ARCHIVE_CRASH_BLOBS"
	// archiveKindEnv is "delivery" for the delivery controller's archiving, "dispatch" for
	// the dispatcher's inline attempts (step sent: after the request, before its record),
	// else empty.
	archiveKindEnv = "TCS_ARCHIVE_CRASH_KIND"
	// archiveCAEnv names the PEM file of the receiver's certificate, for kind dispatch.
	archiveCAEnv = "TCS_ARCHIVE_CRASH_CA"
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
	kind := os.Getenv(archiveKindEnv)
	if kind != "dispatch" {
		// The dispatcher sets it up itself.
		if err := indexEndpoints(mgr); err != nil {
			return fail(err)
		}
	}
	rs, err := results.Open(ctx, os.Getenv(archiveDSNEnv))
	if err != nil {
		return fail(err)
	}
	blobs, err := blob.OpenDir(os.Getenv(archiveBlobsEnv))
	if err != nil {
		return fail(err)
	}
	step := os.Getenv(archiveChildEnv)
	if (kind == "dispatch") != (step == "sent") || (step != "put" && step != "mark" && step != "sent") {
		return fail(fmt.Errorf("unknown step %q of %q", step, kind))
	}
	die := func(id string) {
		fmt.Printf("%s %s\n", step, id)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	var r interface{ SetupWithManager(ctrl.Manager) error }
	switch kind {
	case "dispatch":
		pemData, err := os.ReadFile(os.Getenv(archiveCAEnv))
		if err != nil {
			return fail(err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pemData) {
			return fail(errors.New("no certificate in the CA file"))
		}
		allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		d := &WebhookDeliveryReconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Results: rs, Store: blobs, ArchiveAfter: time.Hour,
			AllowCIDRs: allow, HTTP: sources.NewClient(sources.ClientOptions{AllowCIDRs: allow, RootCAs: roots})}
		if err := d.SetupWithManager(mgr); err != nil {
			return fail(err)
		}
		r = &WebhookDispatchReconciler{Client: mgr.GetClient(), Store: blobs, Results: rs, Inline: d, afterSend: die}
	case "delivery":
		d := &WebhookDeliveryReconciler{Client: mgr.GetClient(), Results: rs, Store: blobs, ArchiveAfter: 50 * time.Millisecond}
		hook := func(x *tcsv1.WebhookDelivery) { die(x.Spec.ID) }
		if step == "put" {
			d.afterPut = hook
		} else {
			d.afterMark = hook
		}
		r = d
	case "":
		a := &ArchiveReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespace: ns, Results: rs, Blobs: blobs, After: 50 * time.Millisecond}
		hook := func(x *tcsv1.Transcript) { die(x.Spec.ID) }
		if step == "put" {
			a.afterPut = hook
		} else {
			a.afterMark = hook
		}
		r = a
	default:
		return fail(fmt.Errorf("unknown kind %q", kind))
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
			// The finalizer the API creates transcripts with; no transcript controller runs
			// here, so the archiver alone must let the deletion end.
			controllerutil.AddFinalizer(tr, tcsv1.FinalizerStoredObjects)
			if err := e.c.Update(ctx, tr); err != nil {
				t.Fatal(err)
			}

			// A reader, as the API reads: the resource, then the record.
			stopReading := readAllAlong(func() bool {
				err := e.c.Get(ctx, client.ObjectKeyFromObject(tr), &tcsv1.Transcript{})
				if !apierrors.IsNotFound(err) {
					return true
				}
				_, err = e.results.Get(ctx, tr.Spec.ID, results.GetOptions{})
				return !errors.Is(err, results.ErrNotFound)
			})

			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
				t.Fatal(err)
			}
			killChildAt(t, step+" "+tr.Spec.ID, archiveChildEnv+"="+step, archiveKubeconfigEnv+"="+kubeconfig,
				archiveNamespaceEnv+"="+e.ns, archiveDSNEnv+"="+e.dsn, archiveBlobsEnv+"="+blobDir)

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
			// The mark takes the finalizer with it, so that the deletion ends at once.
			if held := controllerutil.ContainsFinalizer(live, tcsv1.FinalizerStoredObjects); held != (step == "put") {
				t.Fatalf("after a kill at %s the resource holds its finalizer: %v", step, held)
			}

			// A restarted archiver finishes the move.
			stop := e.run(t, 50*time.Millisecond, nil)
			waitUntil(t, "the restarted archiver moves it", func() bool { return e.gone(t, tr) })
			stop()
			if misses, reads := stopReading(); misses > 0 {
				t.Fatalf("a reader did not find the transcript %d times of %d", misses, reads)
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

// readAllAlong calls found every 5 ms until the returned stop is called, which returns how
// many of the reads found nothing, and how many there were.
func readAllAlong(found func() bool) (stop func() (misses, reads int64)) {
	var m, n atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			default:
			}
			n.Add(1)
			if !found() {
				m.Add(1)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() (int64, int64) {
		close(done)
		<-finished
		return m.Load(), n.Load()
	}
}

// killChildAt runs the test binary as a child process with env added to its environment,
// waits until it prints the line want and checks that it then died of SIGKILL.
func killChildAt(t *testing.T, want string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
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
		if !ok || line != want {
			t.Fatalf("the child stopped without reaching %q (%q): %s", want, line, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the child did not reach %q: %s", want, stderr.String())
	}
	werr := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(werr, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended with %v, not SIGKILL", werr)
	}
}
