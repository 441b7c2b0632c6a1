package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// DefaultAIPassTimeout bounds one AI validation pass.
const DefaultAIPassTimeout = 15 * time.Minute

// DefaultAIPassWorkers is the number of AI passes run at once by default.
const DefaultAIPassWorkers = 4

// AIPassReconciler runs the AI validation pass of Transcripts: it starts a queued pass once
// the deterministic pass is done, runs the provider over the transcript, and records the
// verdicts, or the failure, in one status write that also emits the pass's event.
type AIPassReconciler struct {
	Client client.Client
	// APIReader reads the latest Transcript before the result is written; nil means Client.
	APIReader client.Reader
	Processor *pipeline.Processor
	Provider  aipass.Provider
	// Timeout bounds one pass; zero means DefaultAIPassTimeout.
	Timeout time.Duration
	// Workers is the number of passes run at once; zero means DefaultAIPassWorkers.
	Workers int
	// ProgressInterval is how often at most the job's progress is written while a provider
	// works through a transcript in parts; zero means DefaultAIPassProgressInterval.
	ProgressInterval time.Duration
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
	// Recorder records the AI passes' Events; nil records none.
	Recorder events.EventRecorder
	// Metrics records the AI passes' metrics; nil records none.
	Metrics *metrics.Metrics
	// Glossaries gives the pass the organization's glossary, which the deterministic pass
	// used too; nil means none.
	Glossaries *glossary.Compiler
}

// DefaultAIPassProgressInterval is how often at most a running AI pass writes its progress.
const DefaultAIPassProgressInterval = 2 * time.Second

// Reconcile starts, runs or fails the AI pass of one Transcript.
func (r *AIPassReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := &tcsv1.Transcript{}
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !t.DeletionTimestamp.IsZero() || t.Status.DeletedAt != nil || t.Status.AIPass == nil {
		return ctrl.Result{}, nil
	}
	jobID := t.Status.AIPass.JobID
	switch t.Status.AIPassStatus {
	case tcsv1.AIPassQueued:
		switch t.Status.Phase {
		case tcsv1.PhaseCompleted:
			return r.write(ctx, t, jobID, tcsv1.AIPassQueued, func(t *tcsv1.Transcript) {
				t.StartAIPass(r.Provider.Name(), r.Provider.Model(), metav1.NewTime(r.Clock.Now()))
			})
		case tcsv1.PhaseFailed:
			return r.write(ctx, t, jobID, tcsv1.AIPassQueued, func(t *tcsv1.Transcript) {
				t.FailAIPass("unprocessable", "The transcript failed before the AI validation pass could run.", "", metav1.NewTime(r.Clock.Now()))
			})
		}
		// The pass starts when the deterministic pass completes, which updates the transcript.
		return ctrl.Result{}, nil
	case tcsv1.AIPassRunning:
		return r.run(ctx, t, jobID)
	}
	return ctrl.Result{}, nil
}

// run runs the provider over t and records the outcome.
func (r *AIPassReconciler) run(ctx context.Context, t *tcsv1.Transcript, jobID string) (ctrl.Result, error) {
	keys := pipeline.KeysFor(t.Spec.Organization, t.Spec.ID)
	passCtx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	started := r.Clock.Now()
	var percent atomic.Int32
	stopProgress := r.reportProgress(ctx, t.DeepCopy(), jobID, &percent)
	// The pass finds the changes the deterministic pass stored only with the same glossary.
	opts, err := correctionOptions(ctx, r.Glossaries, t)
	var rev *pipeline.Revision
	if err == nil {
		rev, err = r.Processor.Review(passCtx, pipeline.ReviewInput{
			Keys:     keys,
			Format:   formats.Format(t.Status.Format),
			Options:  opts,
			Language: t.Spec.Options.Language,
			Apply:    t.Status.AIPass.Apply,
			Progress: func(done, total int) {
				// 100 is for the write that ends the job.
				percent.Store(int32(min(99, done*100/max(total, 1))))
			},
		}, r.Provider)
	}
	stopProgress()
	logger := log.FromContext(ctx).WithValues("transcript", t.Spec.ID, "job", jobID, "provider", r.Provider.Name())
	if err != nil {
		if ctx.Err() != nil {
			// The manager is stopping: the pass runs again after the restart.
			return ctrl.Result{}, ctx.Err()
		}
		typ, msg, detail, final := failure(err, passCtx, r.Timeout)
		if !final {
			logger.Error(err, "the AI pass could not run; retrying")
			return ctrl.Result{}, fmt.Errorf("running the AI pass of %s: %w", t.Spec.ID, err)
		}
		logger.Info("the AI pass failed", "error", err.Error())
		usage := aipass.UsageOf(err)
		return r.write(ctx, t, jobID, tcsv1.AIPassRunning, func(t *tcsv1.Transcript) {
			r.ranWith(t)
			// The tokens a failed pass used are billed all the same.
			t.Status.AIPass.Usage = pipeline.TokenUsage(usage)
			t.FailAIPass(typ, msg, detail, metav1.NewTime(r.Clock.Now()))
		})
	}
	logger.Info("the AI pass completed", "confirmed", rev.Confirmed, "rejected", rev.Rejected,
		"uncertain", rev.Uncertain, "proposed", rev.Proposed, "tokens", rev.Usage.TotalTokens, "took", r.Clock.Now().Sub(started))
	return r.write(ctx, t, jobID, tcsv1.AIPassRunning, func(t *tcsv1.Transcript) {
		r.ranWith(t)
		rev.Complete(t, keys, r.Clock.Now())
	})
}

// ranWith records on the running pass of t the provider that gave its outcome: a pass
// started before a restart with another configuration ends with the new provider.
func (r *AIPassReconciler) ranWith(t *tcsv1.Transcript) {
	t.Status.AIPass.Provider, t.Status.AIPass.Model = r.Provider.Name(), r.Provider.Model()
}

// reportProgress writes the job's progress from percent while the pass runs, at most every
// ProgressInterval and only when it moved; the returned func stops it and waits for it.
func (r *AIPassReconciler) reportProgress(ctx context.Context, t *tcsv1.Transcript, jobID string, percent *atomic.Int32) (stop func()) {
	interval := r.ProgressInterval
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		var written int32
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			p := percent.Load()
			if p == written {
				continue
			}
			if _, err := r.write(ctx, t, jobID, tcsv1.AIPassRunning, func(t *tcsv1.Transcript) {
				if job := t.AIPassJob(); job != nil {
					job.Progress = int(p)
				}
			}); err != nil && ctx.Err() == nil {
				log.FromContext(ctx).V(1).Info("writing the AI pass's progress failed", "error", err.Error())
			}
			written = p
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// failure tells how a failed pass is shown: its API error type and message, the message for
// the cluster's operators, which may say where the provider is and what it answered, and
// whether the pass ends with it (false for a fault of tcs's own storage, which is retried).
func failure(err error, passCtx context.Context, timeout time.Duration) (typ, msg, detail string, final bool) {
	var pe *pipeline.ProviderError
	var ce *pipeline.ContentError
	switch {
	case errors.Is(passCtx.Err(), context.DeadlineExceeded):
		return "timeout", fmt.Sprintf("The AI validation pass did not finish within %s.", timeout), "", true
	case errors.As(err, &pe):
		return "server_error", "The AI validation pass failed: " + aipass.PublicMessage(pe.Err),
			"The AI validation pass failed: " + pe.Err.Error(), true
	case errors.As(err, &ce):
		return "unprocessable", ce.Error(), "", true
	case errors.Is(err, pipeline.ErrStale):
		return "conflict", "The AI validation pass cannot run: " + err.Error() + ".", "", true
	case errors.As(err, new(*glossary.InvalidError)):
		return "server_error", "The AI validation pass cannot run: the organization's glossary is invalid; fix it and reprocess the transcript.", err.Error(), true
	}
	return "", "", "", false
}

// write applies mutate to the latest t and patches its status with the change, unless the
// pass jobID is no longer in state from, retrying on conflicts.
func (r *AIPassReconciler) write(ctx context.Context, t *tcsv1.Transcript, jobID string, from tcsv1.AIPassStatus, mutate func(*tcsv1.Transcript)) (ctrl.Result, error) {
	var before *tcsv1.TranscriptStatus
	// Locked: whether to write depends on the state read.
	written, err := statuspatch.Retry(ctx, r.Client, r.APIReader, retry.DefaultRetry, t, statuspatch.OwnerAIPass, func() bool {
		if t.Status.AIPassStatus != from || t.Status.AIPass == nil || t.Status.AIPass.JobID != jobID || t.Status.DeletedAt != nil {
			return false
		}
		before = t.Status.DeepCopy()
		mutate(t)
		return true
	}, statuspatch.Locked)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("updating the AI pass of %s: %w", t.Spec.ID, err)
	}
	if written {
		r.announce(before, t)
	}
	return ctrl.Result{}, nil
}

// setDefaults gives the zero fields their defaults.
func (r *AIPassReconciler) setDefaults() {
	if r.APIReader == nil {
		r.APIReader = r.Client
	}
	orDefault(&r.Timeout, DefaultAIPassTimeout)
	orDefault(&r.Workers, DefaultAIPassWorkers)
	orDefault(&r.ProgressInterval, DefaultAIPassProgressInterval)
	orRealClock(&r.Clock)
}

// SetupWithManager sets the defaults and registers the reconciler with mgr; it sees only transcripts with an AI pass
// queued or running.
func (r *AIPassReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setDefaults()
	busy := predicate.NewPredicateFuncs(func(o client.Object) bool {
		t, ok := o.(*tcsv1.Transcript)
		return ok && t.AIPassBusy()
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.Transcript{}, builder.WithPredicates(busy)).
		Named("aipass").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Workers}).
		Complete(r)
}
