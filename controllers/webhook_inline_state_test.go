package controllers

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// TestTheDispatchersMemoryFindsAStreamsDeliveriesAndForgetsThem checks that the deliveries
// the dispatcher remembers are found by their stream alone, for recentTTL, and are then
// forgotten from the index as from the list.
func TestTheDispatchersMemoryFindsAStreamsDeliveriesAndForgetsThem(t *testing.T) {
	s := newInlineState()
	start := time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC)
	delivery := func(transcript, endpoint string, seq int) *tcsv1.WebhookDelivery {
		return &tcsv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("evt-%s-%s-%d", transcript, endpoint, seq)},
			Spec: tcsv1.WebhookDeliverySpec{TranscriptID: transcript, Endpoint: endpoint, Sequence: seq}}
	}
	for i := range 1000 {
		s.add(delivery(fmt.Sprintf("tr%d", i), "ep1", 0), start)
	}
	s.add(delivery("tr7", "ep1", 1), start.Add(time.Second))
	s.add(delivery("tr7", "ep2", 0), start.Add(time.Second))
	names := func(ds []*tcsv1.WebhookDelivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Name)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name string
		key  string
		at   time.Time
		want []string
	}{
		{"a stream's two deliveries", "tr7/ep1", start.Add(2 * time.Second), []string{"evt-tr7-ep1-0", "evt-tr7-ep1-1"}},
		{"the other endpoint's stream", "tr7/ep2", start.Add(2 * time.Second), []string{"evt-tr7-ep2-0"}},
		{"a stream of one", "tr999/ep1", start, []string{"evt-tr999-ep1-0"}},
		{"a stream never made", "tr1000/ep1", start, nil},
		{"past recentTTL for the first only", "tr7/ep1", start.Add(recentTTL + 500*time.Millisecond), []string{"evt-tr7-ep1-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(s.stream(tc.key, tc.at)); !slices.Equal(got, tc.want) {
				t.Errorf("stream(%s) = %v, want %v", tc.key, got, tc.want)
			}
		})
	}
	// The next add after recentTTL/4 prunes what is older than recentTTL, index included.
	s.add(delivery("tr-late", "ep1", 0), start.Add(2*recentTTL))
	if len(s.made) != 1 || len(s.streams) != 1 || len(s.streams["tr-late/ep1"]) != 1 {
		t.Errorf("after the prune: %d remembered in %d streams, want the last one only", len(s.made), len(s.streams))
	}
}

// BenchmarkInlineStateStream measures the look-up of a stream's deliveries among a minute of
// a burst's (20,000 remembered).
func BenchmarkInlineStateStream(b *testing.B) {
	s := newInlineState()
	now := time.Now()
	for i := range 20000 {
		s.add(&tcsv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("evt-%d", i)},
			Spec: tcsv1.WebhookDeliverySpec{TranscriptID: fmt.Sprintf("tr%d", i/2), Endpoint: "ep"}}, now)
	}
	for i := 0; b.Loop(); i++ {
		if len(s.stream(fmt.Sprintf("tr%d/ep", i%10000), now)) != 2 {
			b.Fatal("a stream of two")
		}
	}
}
