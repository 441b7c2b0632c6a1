package controllers

import (
	"crypto/x509"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
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
