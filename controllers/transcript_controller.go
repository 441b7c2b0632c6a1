// Package controllers holds the reconcilers that drive tcs resources through their phases.
package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/finalizers"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// DefaultAdoptAfter is how long the reconciler leaves a new transcript without a phase to the
// API server, which writes its first status transition (a paste: completed; a youtube or url
// source: pending with its fetch queued), before it takes the transcript over: one made by
// hand, or one whose API request died before that write.
const DefaultAdoptAfter = 5 * time.Second

// DefaultDiscardAfter is how old a paste without a status and without its input must be
// before the reconciler deletes it, taking its request for dead: far longer than a request
// takes to store a paste, so that a slow request is not answered with an error.
const DefaultDiscardAfter = 30 * time.Second

// DefaultMaxAttempts is how often a job may end in a transient error before the transcript fails.
const DefaultMaxAttempts = 5

// DefaultRetryDelay is how long a fetch job waits after its first transient error; each later
// one doubles the wait (2 s, 4 s, 8 s, 16 s).
const DefaultRetryDelay = 2 * time.Second

// Sources fetches the input of remote transcripts.
type Sources interface {
	// YouTubeCaptions returns the captions (VTT) and title of the video at url.
	YouTubeCaptions(ctx context.Context, url, lang string) (vtt []byte, title string, err error)
	// FetchURL returns the file at url.
	FetchURL(ctx context.Context, url string) ([]byte, error)
}

// UserError is implemented by errors the client caused or must hear about, such as a video
// without captions; APIErrorType is the API error type shown on the failed transcript.
type UserError interface {
	error
	APIErrorType() string
}

// TranscriptReconciler moves a Transcript through its phases (fetch → correct) as status
// transitions, one job at a time, and keeps its conditions true to them.
type TranscriptReconciler struct {
	Client    client.Client
	Processor *pipeline.Processor
	// Store holds uploaded inputs.
	Store *blob.Store
	// Sources fetches youtube and url inputs.
	Sources Sources
	// AdoptAfter is DefaultAdoptAfter when zero.
	AdoptAfter time.Duration
	// DiscardAfter is DefaultDiscardAfter when zero.
	DiscardAfter time.Duration
	// MaxAttempts is DefaultMaxAttempts when zero.
	MaxAttempts int
	// RetryDelay is the wait after a fetch job's first transient error, doubled after each
	// later one; zero means DefaultRetryDelay.
	RetryDelay time.Duration
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
	// Retention is how long a soft-deleted transcript can be restored; zero means DefaultRetention.
	Retention time.Duration
	// Workers is the number of transcripts reconciled at once; zero means DefaultWorkers.
	Workers int
	// Recorder records the transcript's Events; nil records none.
	Recorder events.EventRecorder
	// Metrics records the transcripts' metrics; nil records none.
	Metrics *metrics.Metrics
	// Results holds archived webhook deliveries, removed with their transcript; nil means
	// none are archived.
	Results *results.Store
	// Glossaries gives the deterministic pass the organization's glossary; nil means none.
	Glossaries *glossary.Compiler
}

// DefaultRetention is how long a soft-deleted transcript is kept before its content and
// resource are purged.
const DefaultRetention = 30 * 24 * time.Hour

// DefaultWorkers is the number of transcripts reconciled at once by default: fetches wait on
// the network, so more than one keeps the queue moving.
const DefaultWorkers = 8

// +kubebuilder:rbac:groups=tcs.dev,resources=transcripts,verbs=get;list;watch;create;update;patch;delete,namespace=tcs-system
// The status is written with merge patches; update is the API's whole first status of a
// transcript (statuspatch.Replace).
// +kubebuilder:rbac:groups=tcs.dev,resources=transcripts/status,verbs=get;update;patch,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=organizations,verbs=get;list;watch;create;update;patch,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=organizations/status,verbs=get;patch,namespace=tcs-system
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete,namespace=tcs-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=glossaries,verbs=get;list;watch,namespace=tcs-system

// Reconcile brings one Transcript a step further; each step ends in one status patch.
func (r *TranscriptReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := &tcsv1.Transcript{}
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !t.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, t)
	}
	if !controllerutil.ContainsFinalizer(t, tcsv1.FinalizerStoredObjects) && !archived(t) {
		// Transcripts made before the finalizer existed, or by hand, get it before anything
		// is stored for them by this reconciler; the update brings the transcript back. The
		// archiver removes it with its mark (its record keeps the objects); a soft delete
		// undoes the mark, and the finalizer comes back for the purge.
		err := finalizers.Add(ctx, r.Client, t, tcsv1.FinalizerStoredObjects)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil // the newer transcript, or its deletion, brings it back
		}
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the finalizer of %s: %w", t.Spec.ID, err)
		}
		return ctrl.Result{}, nil
	}
	if t.Status.Phase == "" && t.Annotations[tcsv1.AnnotationUnarchived] != "" {
		// Recreated from its archived record: the archiver restores its status first.
		return ctrl.Result{}, nil
	}
	patch := statuspatch.New(t, statuspatch.OwnerTranscript)
	if t.Status.DeletedAt != nil {
		// A soft delete ends what was in flight, in one status write, before the purge waits.
		if t.EndOnSoftDelete(metav1.NewTime(r.Clock.Now())) {
			return afterWrite(patch.Patch(ctx, r.Client, t), "ending the work of deleted transcript %s", t.Spec.ID)
		}
		return r.purge(ctx, t)
	}
	before := t.Status.DeepCopy()
	var result ctrl.Result

	switch t.Status.Phase {
	case "":
		if t.Spec.Source.Type == tcsv1.SourceUpload {
			// An upload grant becomes a transcript when the client confirms it, which the API
			// server writes; an expired, unconfirmed grant is removed.
			return r.expireGrant(ctx, t)
		}
		// The API server writes the first transition of the transcripts it creates, and its
		// answer shows it; only one it left without is taken over here, so that the
		// transition has one writer.
		age := r.Clock.Now().Sub(t.CreationTimestamp.Time)
		if age < r.AdoptAfter {
			return ctrl.Result{RequeueAfter: r.AdoptAfter - age}, nil
		}
		if t.Spec.Source.Type == tcsv1.SourcePaste {
			if ended, res, err := r.discardUnstoredPaste(ctx, t, age); ended || err != nil {
				return res, err
			}
		}
		t.Status.Phase = tcsv1.PhasePending
		t.Status.AIPassStatus = tcsv1.AIPassIdle
		t.AddJob(firstJob(t.Spec.Source.Type), metav1.NewTime(r.Clock.Now()))
		t.QueueRequestedAIPass(metav1.NewTime(r.Clock.Now()))
		t.Emit(tcsv1.EventTranscriptCreated, r.Clock.Now())
	case tcsv1.PhasePending:
		job := t.ActiveJob()
		if job == nil {
			job = t.AddJob(firstJob(t.Spec.Source.Type), metav1.NewTime(r.Clock.Now()))
		}
		var err error
		switch {
		case job.State == tcsv1.JobQueued:
			now := metav1.NewTime(r.Clock.Now())
			job.State, job.StartedAt = tcsv1.JobRunning, &now
		case job.Type == tcsv1.JobCorrection:
			err = r.correct(ctx, t, job)
		default:
			result, err = r.fetch(ctx, t, job)
		}
		if err != nil {
			return ctrl.Result{}, err
		}
	}

	// The patch derives the conditions from the status, and sends nothing when neither
	// changed; for a completed or failed transcript it writes only a newer observed
	// generation (one brought back from its archived record).
	if err := patch.Patch(ctx, r.Client, t); err != nil {
		return afterWrite(err, "updating the status of %s", t.Name)
	}
	r.announce(before, t, result)
	return result, nil
}

// discardUnstoredPaste deletes paste t, age old and left without a status, when its input was
// never stored: the request that created it stores the input while it creates the transcript
// and answers only once both are done, so it died unanswered, and there is nothing to correct.
// Until r.DiscardAfter, which no live request outlasts, it waits instead. It reports whether
// the reconcile of t ends here, and with what result. The deletion is conditional on the
// version read, so a status written meanwhile keeps the transcript, and the API server writes
// no status on a transcript being deleted.
func (r *TranscriptReconciler) discardUnstoredPaste(ctx context.Context, t *tcsv1.Transcript, age time.Duration) (bool, ctrl.Result, error) {
	stored, err := r.Store.Exists(ctx, pipeline.KeysFor(t.Spec.Organization, t.Spec.ID).Input)
	switch {
	case err != nil || stored:
		return false, ctrl.Result{}, err
	case age < r.DiscardAfter:
		return true, ctrl.Result{RequeueAfter: r.DiscardAfter - age}, nil
	}
	uid, version := t.UID, t.ResourceVersion
	err = r.Client.Delete(ctx, t, client.Preconditions{UID: &uid, ResourceVersion: &version})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return true, ctrl.Result{}, nil // the newer transcript, or its deletion, brings it back
	}
	if err != nil {
		return true, ctrl.Result{}, fmt.Errorf("deleting paste %s, whose input was never stored: %w", t.Spec.ID, err)
	}
	log.FromContext(ctx).Info("deleted a paste whose request died before its input was stored", "transcript", t.Spec.ID)
	return true, ctrl.Result{}, nil
}

// firstJob is the type of the job that starts a transcript of source type st.
func firstJob(st tcsv1.SourceType) string {
	switch st {
	case tcsv1.SourceYouTube:
		return tcsv1.JobYouTubeFetch
	case tcsv1.SourceURL:
		return tcsv1.JobURLFetch
	case tcsv1.SourceUpload:
		return tcsv1.JobUploadIngest
	default:
		return tcsv1.JobCorrection
	}
}

// fetch runs a fetch job: it stores the input and queues the correction, or fails the transcript.
func (r *TranscriptReconciler) fetch(ctx context.Context, t *tcsv1.Transcript, job *tcsv1.Job) (ctrl.Result, error) {
	// A failed attempt's status write brings a reconcile at once, and a restart one too:
	// the job runs again only once its recorded wait is over.
	if next := job.NextAttemptAt; next != nil {
		if wait := next.Sub(r.Clock.Now()); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	keys := pipeline.KeysFor(t.Spec.Organization, t.Spec.ID)
	var input []byte
	var title string
	var err error
	switch job.Type {
	case tcsv1.JobYouTubeFetch:
		input, title, err = r.Sources.YouTubeCaptions(ctx, t.Spec.Source.URL, t.Spec.Options.Language)
	case tcsv1.JobURLFetch:
		input, err = r.Sources.FetchURL(ctx, t.Spec.Source.URL)
	case tcsv1.JobUploadIngest:
		err = r.checkUpload(ctx, keys.Input)
	default:
		err = fmt.Errorf("unknown job type %q", job.Type)
	}
	if err == nil && input != nil {
		err = r.Store.Put(ctx, keys.Input, input, "application/octet-stream")
	}
	var ue UserError
	switch {
	case errors.As(err, &ue):
		r.fail(t, job, ue.APIErrorType(), ue.Error())
		return ctrl.Result{}, nil
	case err != nil:
		// The job's error and the transcript's are shown to API clients and webhook receivers:
		// they get the public message, which names no address of the service; the logs get
		// the cause.
		job.Attempts++
		if job.Attempts >= r.MaxAttempts {
			log.FromContext(ctx).Info("job failed for good", "job", job.ID, "attempt", job.Attempts, "error", err.Error())
			r.fail(t, job, "server_error", fmt.Sprintf("The %s job failed %d times; last error: %s.", job.Type, job.Attempts, sources.PublicMessage(err)))
			return ctrl.Result{}, nil
		}
		// The time of the next attempt is written with this one, so that it holds for the
		// reconciles that write brings and after a restart.
		delay := r.retryDelay(job.Attempts)
		next := metav1.NewMicroTime(r.Clock.Now().Add(delay))
		log.FromContext(ctx).Info("job failed; retrying", "job", job.ID, "attempt", job.Attempts, "next", next.Time, "error", err.Error())
		job.Error, job.NextAttemptAt = sources.PublicMessage(err), &next
		return ctrl.Result{RequeueAfter: delay}, nil
	}
	now := metav1.NewTime(r.Clock.Now())
	job.State, job.Progress, job.Error, job.FinishedAt, job.NextAttemptAt = tcsv1.JobSucceeded, 100, "", &now, nil
	if t.Status.Title == "" && t.Spec.Source.Title == "" && title != "" {
		t.Status.Title = clipTitle(title)
	}
	t.AddJob(tcsv1.JobCorrection, now)
	return ctrl.Result{}, nil
}

// clipTitle cuts a title the source gave (a video's), which no client sent and so no request
// refused, to limits.MaxTitle bytes on a rune boundary.
func clipTitle(title string) string {
	if len(title) <= limits.MaxTitle {
		return title
	}
	cut := limits.MaxTitle
	for cut > 0 && !utf8.RuneStart(title[cut]) {
		cut--
	}
	return title[:cut]
}

// checkUpload makes sure the uploaded file is there and within the cap.
func (r *TranscriptReconciler) checkUpload(ctx context.Context, key string) error {
	size, err := r.Store.Size(ctx, key)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return &jobError{typ: "unprocessable", msg: "The uploaded file is missing from the object store."}
	case err != nil:
		return err
	case size > limits.MaxRemoteFile:
		return &jobError{typ: "unprocessable", msg: fmt.Sprintf("The uploaded file is %d bytes; the limit is %d bytes (5 MB).", size, limits.MaxRemoteFile)}
	}
	return nil
}

// jobError is a UserError of the reconciler itself.
type jobError struct{ typ, msg string }

func (e *jobError) Error() string        { return e.msg }
func (e *jobError) APIErrorType() string { return e.typ }

// correct runs the deterministic pass over the stored input and completes the transcript.
func (r *TranscriptReconciler) correct(ctx context.Context, t *tcsv1.Transcript, job *tcsv1.Job) error {
	keys := pipeline.KeysFor(t.Spec.Organization, t.Spec.ID)
	opts, err := correctionOptions(ctx, r.Glossaries, t)
	var invalid *glossary.InvalidError
	switch {
	case errors.As(err, &invalid):
		r.fail(t, job, "server_error", "The organization's glossary is invalid; fix it and submit the transcript again: "+invalid.Err.Error())
		return nil
	case err != nil:
		return err
	}
	res, err := r.Processor.Reprocess(ctx, keys, formats.Format(t.Spec.Source.Format), opts)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		r.fail(t, job, "server_error", "The submitted content was not stored; submit the transcript again.")
		return nil
	case errors.As(err, new(*pipeline.ContentError)):
		r.fail(t, job, "unprocessable", err.Error())
		return nil
	case err != nil:
		log.FromContext(ctx).Error(err, "correcting a transcript failed; retrying")
		return fmt.Errorf("correcting %s: %w", t.Spec.ID, err)
	}
	res.Complete(t, keys, r.Clock.Now())
	return nil
}

// correctionOptions returns the options of the deterministic pass of t: those of its spec
// and its organization's glossary, read from glossaries (none when nil).
func correctionOptions(ctx context.Context, glossaries *glossary.Compiler, t *tcsv1.Transcript) (correction.Options, error) {
	opts := pipeline.CorrectionOptions(t.Spec.Options)
	if glossaries == nil {
		return opts, nil
	}
	g, err := glossaries.Compiled(ctx, t.Spec.Organization)
	if err != nil {
		return opts, fmt.Errorf("reading the glossary for %s: %w", t.Spec.ID, err)
	}
	opts.Glossary = g
	return opts, nil
}

// fail ends job and the transcript with an error the API shows.
func (r *TranscriptReconciler) fail(t *tcsv1.Transcript, job *tcsv1.Job, typ, msg string) {
	now := metav1.NewTime(r.Clock.Now())
	job.State, job.Error, job.FinishedAt, job.NextAttemptAt = tcsv1.JobFailed, msg, &now, nil
	t.Status.Phase = tcsv1.PhaseFailed
	t.Status.Error = &tcsv1.TranscriptError{Type: typ, Message: msg}
	t.Emit(tcsv1.EventTranscriptCreated, now.Time)
	t.Emit(tcsv1.EventTranscriptFailed, now.Time)
	t.FailAIPass("unprocessable", "The transcript failed before the AI validation pass could run.", "", now)
}

// expireGrant deletes an upload grant that expired unconfirmed, with its object.
func (r *TranscriptReconciler) expireGrant(ctx context.Context, t *tcsv1.Transcript) (ctrl.Result, error) {
	exp := t.Spec.Source.UploadExpiresAt
	if exp == nil {
		return ctrl.Result{}, nil
	}
	// Leave a minute for a confirmation sent just before the expiry.
	if wait := exp.Add(time.Minute).Sub(r.Clock.Now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if err := r.Store.Delete(ctx, pipeline.KeysFor(t.Spec.Organization, t.Spec.ID).Input); err != nil {
		return ctrl.Result{}, err
	}
	err := r.Client.Delete(ctx, t, client.Preconditions{ResourceVersion: &t.ResourceVersion})
	return afterWrite(client.IgnoreNotFound(err), "deleting the expired upload grant %s", t.Name)
}

// purge deletes a soft-deleted transcript once its retention is over; the finalizer then
// removes its objects.
func (r *TranscriptReconciler) purge(ctx context.Context, t *tcsv1.Transcript) (ctrl.Result, error) {
	if wait := t.Status.DeletedAt.Add(r.Retention).Sub(r.Clock.Now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	// The precondition keeps a transcript restored a moment ago, with its text.
	err := r.Client.Delete(ctx, t, client.Preconditions{ResourceVersion: &t.ResourceVersion})
	return afterWrite(client.IgnoreNotFound(err), "purging %s", t.Spec.ID)
}

// finalize removes what a deleted transcript kept in the object store, and its webhook
// deliveries (in the cluster and archived) with their payloads, and only then its finalizer,
// so an error (returned, and retried with backoff) never leaves an object behind.
func (r *TranscriptReconciler) finalize(ctx context.Context, t *tcsv1.Transcript) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(t, tcsv1.FinalizerStoredObjects) {
		return ctrl.Result{}, nil
	}
	if archived(t) {
		// Moved to the results store: its record points to its objects, and its deliveries
		// end and are collected on their own.
		return r.endFinalize(ctx, t)
	}
	keys := pipeline.KeysFor(t.Spec.Organization, t.Spec.ID)
	for _, key := range keys.All() {
		if err := r.Store.Delete(ctx, key); err != nil {
			return ctrl.Result{}, fmt.Errorf("removing the objects of deleted transcript %s: %w", t.Spec.ID, err)
		}
	}
	// The review's versions, the one in force and the earlier ones.
	if err := r.Store.DeletePrefix(ctx, keys.ReviewPrefix()); err != nil {
		return ctrl.Result{}, fmt.Errorf("removing the review of deleted transcript %s: %w", t.Spec.ID, err)
	}
	deliveries := &tcsv1.WebhookDeliveryList{}
	if err := r.Client.List(ctx, deliveries, client.InNamespace(t.Namespace),
		client.MatchingLabels{tcsv1.LabelOrganization: t.Spec.Organization}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the deliveries of deleted transcript %s: %w", t.Spec.ID, err)
	}
	for i := range deliveries.Items {
		d := &deliveries.Items[i]
		if d.Spec.TranscriptID != t.Spec.ID {
			continue
		}
		if d.Spec.PayloadRef != "" {
			if err := r.Store.Delete(ctx, d.Spec.PayloadRef); err != nil {
				return ctrl.Result{}, fmt.Errorf("removing the payload of delivery %s: %w", d.Spec.ID, err)
			}
		}
		if err := r.Client.Delete(ctx, d); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("removing delivery %s: %w", d.Spec.ID, err)
		}
	}
	if err := removeArchivedDeliveries(ctx, r.Results, r.Store, t.Spec.ID); err != nil {
		return ctrl.Result{}, err
	}
	return r.endFinalize(ctx, t)
}

// archived reports whether t is deleted because the archiver moved it to the results store:
// it carries the archiver's mark and is not soft-deleted (a soft-deleted transcript is never
// archived; its deletion is the purge).
func archived(t *tcsv1.Transcript) bool {
	return t.Annotations[tcsv1.AnnotationArchivedAt] != "" && t.Status.DeletedAt == nil
}

// endFinalize removes FinalizerStoredObjects from t, letting its deletion end.
func (r *TranscriptReconciler) endFinalize(ctx context.Context, t *tcsv1.Transcript) (ctrl.Result, error) {
	err := finalizers.Remove(ctx, r.Client, t, tcsv1.FinalizerStoredObjects)
	return afterWrite(client.IgnoreNotFound(err), "removing the finalizer of %s", t.Spec.ID)
}

// retryDelay is the wait after a job's attempts-th transient error.
func (r *TranscriptReconciler) retryDelay(attempts int) time.Duration {
	return r.RetryDelay << (attempts - 1)
}

// setDefaults gives the zero fields their defaults.
func (r *TranscriptReconciler) setDefaults() {
	orDefault(&r.AdoptAfter, DefaultAdoptAfter)
	orDefault(&r.DiscardAfter, max(DefaultDiscardAfter, r.AdoptAfter))
	orDefault(&r.MaxAttempts, DefaultMaxAttempts)
	orDefault(&r.RetryDelay, DefaultRetryDelay)
	orDefault(&r.Retention, DefaultRetention)
	orDefault(&r.Workers, DefaultWorkers)
	orRealClock(&r.Clock)
}

// SetupWithManager sets the defaults and registers the reconciler with mgr.
func (r *TranscriptReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setDefaults()
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.Transcript{}).
		Named("transcript").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Workers}).
		Complete(r)
}
