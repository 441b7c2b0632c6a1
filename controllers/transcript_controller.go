// Package controllers holds the reconcilers that drive tcs resources through their phases.
package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/formats"
	"tcs.dev/tcs/internal/pipeline"
)

// DefaultPasteGrace is how long the reconciler leaves a new paste transcript to the API server,
// which corrects it inline, before finishing it itself.
const DefaultPasteGrace = 5 * time.Second

// TranscriptReconciler moves a Transcript through its phases and keeps its conditions true to them.
type TranscriptReconciler struct {
	Client    client.Client
	Processor *pipeline.Processor
	// PasteGrace is DefaultPasteGrace when zero.
	PasteGrace time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// +kubebuilder:rbac:groups=tcs.dev,resources=transcripts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=tcs.dev,resources=transcripts/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tcs.dev,resources=organizations,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=tcs.dev,resources=organizations/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile brings one Transcript a step further.
func (r *TranscriptReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := &tcsv1.Transcript{}
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !t.DeletionTimestamp.IsZero() || t.Status.DeletedAt != nil {
		return ctrl.Result{}, nil
	}
	before := t.Status.DeepCopy()

	switch t.Status.Phase {
	case "":
		if t.Spec.Source.Type == tcsv1.SourcePaste {
			if age := r.now().Sub(t.CreationTimestamp.Time); age < r.pasteGrace() {
				return ctrl.Result{RequeueAfter: r.pasteGrace() - age}, nil
			}
		}
		t.Status.Phase = tcsv1.PhasePending
		t.Status.AIPassStatus = tcsv1.AIPassIdle
		t.SyncConditions()
	case tcsv1.PhasePending:
		if t.Spec.Source.Type == tcsv1.SourcePaste {
			if err := r.correctPaste(ctx, t); err != nil {
				return ctrl.Result{}, err
			}
		} else {
			// Fetching youtube, url and upload sources is not built yet: they stay pending.
			t.SyncConditions()
		}
	default:
		t.SyncConditions()
	}

	if equality.Semantic.DeepEqual(before, &t.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Update(ctx, t); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, fmt.Errorf("updating the status of %s: %w", t.Name, err)
	}
	return ctrl.Result{}, nil
}

// correctPaste runs the deterministic pass over a paste's stored input; the API server does
// this inline, so this only finishes a transcript whose request died half-way.
func (r *TranscriptReconciler) correctPaste(ctx context.Context, t *tcsv1.Transcript) error {
	keys := pipeline.KeysFor(t.Spec.Organization, t.Spec.ID)
	res, err := r.Processor.Reprocess(ctx, keys, formats.Format(t.Spec.Source.Format), pipeline.CorrectionOptions(t.Spec.Options))
	switch {
	case errors.Is(err, blob.ErrNotFound):
		t.Status.Phase = tcsv1.PhaseFailed
		t.Status.Error = &tcsv1.TranscriptError{Type: "server_error", Message: "The submitted content was not stored; submit the transcript again."}
		t.SyncConditions()
		return nil
	case errors.As(err, new(*pipeline.ContentError)):
		t.Status.Phase = tcsv1.PhaseFailed
		t.Status.Error = &tcsv1.TranscriptError{Type: "unprocessable", Message: err.Error()}
		t.SyncConditions()
		return nil
	case err != nil:
		log.FromContext(ctx).Error(err, "correcting a paste transcript failed; retrying")
		return fmt.Errorf("correcting %s: %w", t.Spec.ID, err)
	}
	res.Complete(t, keys, r.now())
	return nil
}

func (r *TranscriptReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *TranscriptReconciler) pasteGrace() time.Duration {
	if r.PasteGrace > 0 {
		return r.PasteGrace
	}
	return DefaultPasteGrace
}

// SetupWithManager registers the reconciler with mgr.
func (r *TranscriptReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.Transcript{}).
		Named("transcript").
		Complete(r)
}
