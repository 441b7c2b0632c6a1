package controllers

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
)

// purgeBatch is how many records one query of a purge reads.
const purgeBatch = 100

// removeArchivedDeliveries removes the archived deliveries of transcript id and their
// payloads, in batches: each payload goes before its record, so a crash leaves the record to
// remove again.
func removeArchivedDeliveries(ctx context.Context, rs *results.Store, blobs *blob.Store, id string) error {
	if rs == nil || id == "" {
		return nil
	}
	for {
		page, err := rs.ListDeliveries(ctx, results.DeliveryListOptions{TranscriptID: id, Limit: purgeBatch})
		if err != nil {
			return fmt.Errorf("listing the archived deliveries of %s: %w", id, err)
		}
		for _, d := range page.Deliveries {
			if err := removeArchivedDelivery(ctx, rs, blobs, d, true); err != nil {
				return err
			}
		}
		if !page.HasMore {
			return nil
		}
	}
}

// removeArchivedDelivery removes the record of d and, with payload, its payload first.
func removeArchivedDelivery(ctx context.Context, rs *results.Store, blobs *blob.Store, d *results.Delivery, payload bool) error {
	if ref := d.Delivery.Spec.PayloadRef; payload && ref != "" {
		if err := blobs.Delete(ctx, ref); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return fmt.Errorf("removing the payload of archived delivery %s: %w", d.ID, err)
		}
	}
	if err := rs.DeleteDelivery(ctx, d.ID); err != nil && !errors.Is(err, results.ErrNotFound) {
		return err
	}
	return nil
}

// PurgeDeliveries removes the archived deliveries that ended longer than DeliveryRetention
// ago, with their payloads, in batches. A delivery brought back into the cluster for a replay
// keeps its payload: only its stale record goes, and its archiving writes a new one.
func (r *ArchiveReconciler) PurgeDeliveries(ctx context.Context) error {
	for {
		ds, err := r.Results.DeliveriesEndedBefore(ctx, r.Clock.Now().Add(-r.DeliveryRetention), purgeBatch)
		if err != nil {
			return err
		}
		for _, d := range ds {
			live := false
			if r.Client != nil {
				err := r.Client.Get(ctx, types.NamespacedName{Namespace: d.Delivery.Namespace, Name: d.Delivery.Name}, &tcsv1.WebhookDelivery{})
				switch {
				case err == nil:
					live = true
				case !apierrors.IsNotFound(err):
					return fmt.Errorf("reading delivery %s: %w", d.Delivery.Name, err)
				}
			}
			if err := removeArchivedDelivery(ctx, r.Results, r.Blobs, d, !live); err != nil {
				return err
			}
		}
		if len(ds) < purgeBatch {
			return nil
		}
	}
}
