package recorder

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Main(m, &env)
}

// TestTheBroadcasterKeepsToItsRate checks that Events recorded in a burst reach the API
// server no faster than the burst and the rate allow, and that none of them is lost.
func TestTheBroadcasterKeepsToItsRate(t *testing.T) {
	const qps, burst, n = 5, 10, 30
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := StartBroadcaster(ctx, env.Config, scheme.New(), qps, burst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Shutdown()
	ns := env.Namespace(t, "recorder")
	rec := b.Recorder(API)
	start := time.Now()
	for i := range n {
		obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i))}}
		Record(rec, obj, nil, corev1.EventTypeNormal, ReasonCorrected, ActionCorrect, "Event %d.", i)
	}
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	count := func() int {
		list := &eventsv1.EventList{}
		if err := c.List(t.Context(), list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}
	time.Sleep(time.Second)
	// Counted after the elapsed time is read: the count can only be higher than what was
	// written by then, never what a slow machine would make it.
	elapsed := time.Since(start).Seconds()
	if got, most := count(), burst+int(qps*elapsed)+1; got > most {
		t.Errorf("%d Events written %.1f s after a burst of %d, want at most %d (burst %d, %d a second)", got, elapsed, n, most, burst, qps)
	}
	testenv.Eventually(t, 30*time.Second, func() (bool, string) {
		got := count()
		return got == n, fmt.Sprintf("%d of %d Events written", got, n)
	})
}

// TestTheBroadcasterRefusesNoRate checks that a rate or burst of zero is refused rather than
// taken as no limit.
func TestTheBroadcasterRefusesNoRate(t *testing.T) {
	for _, tc := range []struct {
		qps   float32
		burst int
	}{{0, 10}, {10, 0}, {-1, 10}} {
		if _, err := StartBroadcaster(t.Context(), env.Config, scheme.New(), tc.qps, tc.burst); err == nil {
			t.Errorf("StartBroadcaster(qps %v, burst %d) = nil error, want one", tc.qps, tc.burst)
		}
	}
}
