package main

import (
	"fmt"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/sources"
)

// registration is one controller of the service and what registering it is called in errors.
type registration struct {
	what string
	r    interface{ SetupWithManager(ctrl.Manager) error }
}

// setupControllers registers every controller of the service with mgr.
func setupControllers(mgr ctrl.Manager, o serveOptions, svc *services, log logr.Logger) error {
	c := mgr.GetClient()
	log.Info("AI validation pass", "provider", svc.provider.Name(), "model", svc.provider.Model())
	versions, err := controllers.NewSecretVersions(mgr, o.namespace)
	if err != nil {
		return err
	}
	// The dispatcher makes the first attempt of a delivery with it (see WebhookDispatchReconciler.Inline).
	deliveries := &controllers.WebhookDeliveryReconciler{
		Client:         c,
		Reader:         mgr.GetAPIReader(),
		SecretVersions: versions,
		HTTP:           svc.outbound,
		AllowCIDRs:     svc.allow,
		Store:          svc.store,
		RetryDelays:    o.webhookRetryDelays,
		Retention:      o.webhookRetention,
		Results:        svc.results,
		ArchiveAfter:   o.archiveAfter,
		Recorder:       svc.events.Recorder(recorder.Webhook),
		Metrics:        svc.metrics,
		Clock:          svc.clock,
	}
	// The dispatcher hands the archiver the transcripts whose deliveries it has made, when
	// there is an archiver to take them out of the working set.
	var dispatched chan event.GenericEvent
	if o.archiveAfter > 0 {
		dispatched = make(chan event.GenericEvent, dispatchedQueue)
	}
	for _, reg := range []registration{
		{"setting up the transcript controller", &controllers.TranscriptReconciler{
			Client:     c,
			Processor:  svc.processor,
			Store:      svc.store,
			Sources:    &sources.Fetcher{YouTube: &sources.YouTube{BaseURL: o.youtubeBaseURL, Client: svc.outbound}, Client: svc.outbound},
			Recorder:   svc.events.Recorder(recorder.Transcript),
			Metrics:    svc.metrics,
			Results:    svc.results,
			Clock:      svc.clock,
			Glossaries: svc.glossaries,
		}},
		{"setting up the AI pass controller", &controllers.AIPassReconciler{
			Client:     c,
			APIReader:  mgr.GetAPIReader(),
			Processor:  svc.processor,
			Provider:   svc.provider,
			Timeout:    o.ai.timeout,
			Workers:    o.ai.workers,
			Recorder:   svc.events.Recorder(recorder.AIPass),
			Metrics:    svc.metrics,
			Clock:      svc.clock,
			Glossaries: svc.glossaries,
		}},
		{"setting up the webhook endpoint controller", &controllers.WebhookEndpointReconciler{Client: c, Clock: svc.clock}},
		{"setting up the webhook dispatch controller", &controllers.WebhookDispatchReconciler{Client: c, Store: svc.store, Results: svc.results, Retention: o.webhookRetention, Metrics: svc.metrics, Clock: svc.clock, Inline: deliveries, Archived: dispatched}},
		{"setting up the webhook delivery controller", deliveries},
		archiver(c, mgr.GetAPIReader(), o, svc, dispatched),
		{"adding the sweep of expired idempotency records", runnable{&controllers.IdempotencySweeper{Results: svc.results, Clock: svc.clock}}},
		{"adding the sweep of the audit trail", runnable{&controllers.AuditSweeper{Results: svc.results, Retention: o.auditRetention, Clock: svc.clock}}},
		{"setting up the organization controller", &controllers.OrganizationReconciler{Client: c}},
	} {
		if err := reg.r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("%s: %w", reg.what, err)
		}
	}
	return nil
}

// archiver moves finished transcripts to the results store after --archive-after; with
// archiving off (0) it only purges archived transcripts soft-deleted through the API, and
// archived deliveries, once their retention has passed.
func archiver(c client.Client, apiReader client.Reader, o serveOptions, svc *services, dispatched <-chan event.GenericEvent) registration {
	if o.archiveAfter > 0 {
		return registration{"setting up the archiver", &controllers.ArchiveReconciler{
			Dispatched:        dispatched,
			RecordAfter:       o.archiveRecordAfter,
			Client:            c,
			APIReader:         apiReader,
			Namespace:         o.namespace,
			Results:           svc.results,
			Blobs:             svc.store,
			After:             o.archiveAfter,
			DeliveryRetention: o.webhookRetention,
			Clock:             svc.clock,
		}}
	}
	return registration{"adding the purge of archived transcripts", runnable{&controllers.ArchiveReconciler{Client: c, Results: svc.results, Blobs: svc.store, DeliveryRetention: o.webhookRetention, Clock: svc.clock}}}
}

// dispatchedQueue is how many transcripts the dispatcher may hand the archiver before it waits
// for the archiver's queue to take them.
const dispatchedQueue = 1024

// runnable registers a manager.Runnable that reconciles nothing.
type runnable struct {
	manager.Runnable
}

func (r runnable) SetupWithManager(mgr ctrl.Manager) error { return mgr.Add(r.Runnable) }
