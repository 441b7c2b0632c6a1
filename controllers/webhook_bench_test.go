package controllers

import (
	"crypto/x509"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/results"
)

// BenchmarkDeliveryThroughput measures how many deliveries per second the delivery controller
// sends, signed, over HTTPS to a loopback receiver: the deliveries exist before the controller
// starts, each of another transcript, so nothing but the controller bounds the rate. Run it with
// `go test -run '^$' -bench DeliveryThroughput -benchtime 1x ./controllers/`.
func BenchmarkDeliveryThroughput(b *testing.B) {
	const n = 400
	for b.Loop() {
		secret := iwebhook.NewSecret()
		rc := newReceiver(b, secret)
		store, err := blob.OpenDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AddCert(rc.srv.Certificate())
		h := &hookEnv{c: env.Client(b, client.Options{Scheme: scheme.New()}), store: store, ns: env.Namespace(b, "tcs-bench"), roots: roots}
		ep := h.endpoint(b, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCompleted)
		for i := range n {
			id := fmt.Sprintf("evt_bench%06d", i)
			key := iwebhook.PayloadKey("org_a", id)
			if err := store.Put(b.Context(), key, []byte(`{"id":"tr_x","object":"transcript","event":"transcript.completed"}`), "application/json"); err != nil {
				b.Fatal(err)
			}
			d := &tcsv1.WebhookDelivery{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("evt-bench%06d", i), Namespace: h.ns},
				Spec: tcsv1.WebhookDeliverySpec{ID: id, Organization: "org_a", Endpoint: ep.Name,
					Event: tcsv1.EventTranscriptCompleted, TranscriptID: fmt.Sprintf("tr_bench%06d", i), PayloadRef: key},
			}
			if err := h.c.Create(b.Context(), d); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		stop := h.run(b)
		deadline := start.Add(2 * time.Minute)
		for len(rc.requests()) < n {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d deliveries arrived in 2 minutes", len(rc.requests()), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed := time.Since(start)
		stop()
		// The steady rate, from the first delivery to the last, leaves out the manager's start.
		got := rc.requests()
		first, last := got[0].start, got[0].end
		for _, r := range got {
			if r.end.After(last) {
				last = r.end
			}
			if r.start.Before(first) {
				first = r.start
			}
		}
		b.ReportMetric(float64(n)/elapsed.Seconds(), "deliveries/s-from-start")
		b.ReportMetric(float64(len(got)-1)/last.Sub(first).Seconds(), "deliveries/s")
	}
}

// BenchmarkDispatchThroughput measures, in one run, the deliveries per second from the events
// of transcripts to a loopback HTTPS receiver through the dispatcher and the delivery
// controller, and the writes per delivery at the API server: "resource" makes every delivery a
// WebhookDelivery for the delivery controller to send (as before issue 25; its later
// archiving, 2 writes more each, is left out), "inline" lets the dispatcher make first
// attempts itself. n completed transcripts with two undispatched events each exist before the
// controllers start, with the results store in SQLite as `tcs dev` has it. Run it with
// `go test -run '^$' -bench DispatchThroughput -benchtime 1x ./controllers/`.
func BenchmarkDispatchThroughput(b *testing.B) {
	const n = 200
	for _, mode := range []struct {
		name   string
		inline bool
	}{{"resource", false}, {"inline", true}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				secret := iwebhook.NewSecret()
				rc := newReceiver(b, secret)
				store, err := blob.OpenDir(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				rs, err := results.Open(b.Context(), "sqlite://"+filepath.Join(b.TempDir(), "results.db"))
				if err != nil {
					b.Fatal(err)
				}
				roots := x509.NewCertPool()
				roots.AddCert(rc.srv.Certificate())
				h := &hookEnv{c: env.Client(b, client.Options{Scheme: scheme.New()}), store: store, ns: env.Namespace(b, "tcs-bench"), roots: roots,
					opts: hookOptions{results: rs, archiveAfter: time.Hour, inline: mode.inline}}
				h.endpoint(b, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
				for range n {
					tr := newTranscript(h.ns, "org_a", tcsv1.SourcePaste)
					if err := h.c.Create(b.Context(), tr); err != nil {
						b.Fatal(err)
					}
					now := metav1.Now()
					tr.Status.Phase, tr.Status.AIPassStatus, tr.Status.CompletedAt = tcsv1.PhaseCompleted, tcsv1.AIPassIdle, &now
					tr.Emit(tcsv1.EventTranscriptCreated, now.Time)
					tr.Emit(tcsv1.EventTranscriptCompleted, now.Time)
					if err := h.c.Status().Update(b.Context(), tr); err != nil {
						b.Fatal(err)
					}
				}
				before := apiWrites(b)
				start := time.Now()
				stop := h.run(b)
				deadline := start.Add(3 * time.Minute)
				for len(rc.requests()) < 2*n {
					if time.Now().After(deadline) {
						b.Fatalf("%d of %d deliveries arrived in 3 minutes", len(rc.requests()), 2*n)
					}
					time.Sleep(5 * time.Millisecond)
				}
				elapsed := time.Since(start)
				// Every event marked dispatched: the dispatcher's writes are all made.
				for {
					list := &tcsv1.TranscriptList{}
					if err := h.c.List(b.Context(), list, client.InNamespace(h.ns)); err != nil {
						b.Fatal(err)
					}
					if !slices.ContainsFunc(list.Items, func(tr tcsv1.Transcript) bool { return !allDispatched(&tr) }) {
						break
					}
					if time.Now().After(deadline) {
						b.Fatal("the events were not all marked dispatched in 3 minutes")
					}
					time.Sleep(50 * time.Millisecond)
				}
				writes := writesSince(b, before)
				stop()
				rs.Close()
				if got := len(rc.requests()); got != 2*n {
					b.Fatalf("%d requests, want %d", got, 2*n)
				}
				got := rc.requests()
				first, last := got[0].start, got[0].end
				for _, r := range got {
					first, last = minTime(first, r.start), maxTime(last, r.end)
				}
				b.ReportMetric(float64(2*n)/elapsed.Seconds(), "deliveries/s-from-start")
				b.ReportMetric(float64(len(got)-1)/last.Sub(first).Seconds(), "deliveries/s")
				b.ReportMetric(float64(writes["webhookdeliveries"])/float64(2*n), "delivery-writes/delivery")
				b.ReportMetric(float64(writes["transcripts"])/float64(2*n), "transcript-writes/delivery")
			}
		})
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
