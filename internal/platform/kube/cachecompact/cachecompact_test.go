package cachecompact

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/equality"
	kjson "sigs.k8s.io/json"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// finished is a finished paste transcript as the API server returns it (managedFields aside),
// with every field the compactor shares set.
func finished(i int) []byte {
	id := fmt.Sprintf("tr_%020d", i)
	return fmt.Appendf(nil, `{"apiVersion":"tcs.dev/v1alpha1","kind":"Transcript","metadata":{"creationTimestamp":"2026-11-23T17:22:15Z",
"finalizers":["tcs.dev/stored-objects"],"generation":1,"labels":{"tcs.dev/organization":"org_u8oxpw1u0m8x6ttdqwd5","tcs.dev/source-type":"paste"},
"managedFields":[{"manager":"tcs","operation":"Update","apiVersion":"tcs.dev/v1alpha1","time":"2026-11-23T17:22:15Z"}],
"name":"tr-%[2]s","namespace":"tcs-system","resourceVersion":"%[3]d","uid":"6c88315b-9aee-4329-aba3-%012[3]d"},
"spec":{"id":"%[1]s","options":{"aiPass":{"enabled":true},"language":"en"},"organization":"org_u8oxpw1u0m8x6ttdqwd5",
"source":{"inputRef":"transcripts/org_u8oxpw1u0m8x6ttdqwd5/%[1]s/input","type":"paste","format":"srt"}},
"status":{"aiPassStatus":"completed","changesRef":"transcripts/org_u8oxpw1u0m8x6ttdqwd5/%[1]s/changes.json",
"changesSummary":{"aiFlagged":1,"autoApplied":%[3]d,"byCategory":{"bible":%[3]d,"places":2},"needsReview":0,"total":%[3]d},
"completedAt":"2026-11-23T17:22:15Z",
"aiPass":{"jobID":"job_%[2]s02","provider":"rules","model":"rules-v4","confirmed":3,"error":{"type":"provider_error","message":"x"}},
"error":{"type":"fetch_failed","message":"it failed"},
"conditions":[{"lastTransitionTime":"2026-11-23T17:22:15Z","message":"The deterministic pass wrote the corrected content.","observedGeneration":1,"reason":"Corrected","status":"True","type":"Corrected"},
{"lastTransitionTime":"2026-11-23T17:22:15Z","message":"The transcript is completed.","observedGeneration":1,"reason":"Completed","status":"True","type":"Ready"}],
"contentRef":"transcripts/org_u8oxpw1u0m8x6ttdqwd5/%[1]s/content",
"emittedEvents":[{"dispatched":true,"time":"2026-11-23T17:22:15Z","type":"transcript.created"},{"dispatched":true,"time":"2026-11-23T17:22:15Z","type":"transcript.completed"}],
"format":"txt",
"jobs":[{"createdAt":"2026-11-23T17:22:15Z","finishedAt":"2026-11-23T17:22:15Z","id":"job_%[2]s01","progress":100,"startedAt":"2026-11-23T17:22:15Z","state":"succeeded","type":"correction"}],
"observedGeneration":1,"phase":"completed","title":"turn with me to 1 Corinthians 13 %[3]d"}}`, id, id[3:], i+1)
}

func decode(t testing.TB, data []byte) *tcsv1.Transcript {
	t.Helper()
	var tr tcsv1.Transcript
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr
}

func TestTransformKeepsEveryValue(t *testing.T) {
	c := New()
	for i := range 3 {
		want := decode(t, finished(i))
		want.ManagedFields = nil
		got, err := c.Transform(decode(t, finished(i)))
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(got, want) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			t.Fatalf("transcript %d changed:\n got %s\nwant %s", i, a, b)
		}
	}
}

// TestTransformShares checks that two compacted transcripts hold one copy of what they repeat,
// and their own copy of what is theirs.
func TestTransformShares(t *testing.T) {
	c := New()
	a, b := decode(t, finished(1)), decode(t, finished(2))
	for _, tr := range []*tcsv1.Transcript{a, b} {
		if _, err := c.Transform(tr); err != nil {
			t.Fatal(err)
		}
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	for _, tc := range []struct {
		name   string
		x, y   string
		shared bool
	}{
		{"apiVersion", a.APIVersion, b.APIVersion, true},
		{"namespace", a.Namespace, b.Namespace, true},
		{"finalizer", a.Finalizers[0], b.Finalizers[0], true},
		{"organization", a.Spec.Organization, b.Spec.Organization, true},
		{"source type", string(a.Spec.Source.Type), string(b.Spec.Source.Type), true},
		{"language", a.Spec.Options.Language, b.Spec.Options.Language, true},
		{"phase", string(a.Status.Phase), string(b.Status.Phase), true},
		{"ai pass status", string(a.Status.AIPassStatus), string(b.Status.AIPassStatus), true},
		{"ai pass model", a.Status.AIPass.Model, b.Status.AIPass.Model, true},
		{"error type", a.Status.Error.Type, b.Status.Error.Type, true},
		{"job type", a.Status.Jobs[0].Type, b.Status.Jobs[0].Type, true},
		{"job state", string(a.Status.Jobs[0].State), string(b.Status.Jobs[0].State), true},
		{"event type", a.Status.EmittedEvents[1].Type, b.Status.EmittedEvents[1].Type, true},
		{"condition reason", a.Status.Conditions[1].Reason, b.Status.Conditions[1].Reason, true},
		{"condition message", a.Status.Conditions[0].Message, b.Status.Conditions[0].Message, true},
		{"name", a.Name, b.Name, false},
		{"title", a.Status.Title, b.Status.Title, false},
		{"content ref", a.Status.ContentRef, b.Status.ContentRef, false},
	} {
		if tc.x == "" || tc.y == "" {
			t.Fatalf("%s: empty; the test shows nothing", tc.name)
		}
		if got := same(tc.x, tc.y); got != tc.shared {
			t.Errorf("%s: shared %v, want %v", tc.name, got, tc.shared)
		}
	}
	if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
		t.Error("equal labels are two maps")
	}
	// Transcripts 1 and 2 count different changes; 4 counts as many as 1.
	d := decode(t, finished(1))
	c.Transcript(d)
	if p := reflect.ValueOf(a.Status.ChangesSummary.ByCategory).UnsafePointer(); p == reflect.ValueOf(b.Status.ChangesSummary.ByCategory).UnsafePointer() ||
		p != reflect.ValueOf(d.Status.ChangesSummary.ByCategory).UnsafePointer() {
		t.Errorf("counts by category: %v and %v share a map, or two equal %v do not", a.Status.ChangesSummary.ByCategory, b.Status.ChangesSummary.ByCategory, d.Status.ChangesSummary.ByCategory)
	}
	other := decode(t, finished(3))
	other.Labels["tcs.dev/source-type"] = "youtube"
	c.Transcript(other)
	if reflect.ValueOf(a.Labels).UnsafePointer() == reflect.ValueOf(other.Labels).UnsafePointer() || other.Labels["tcs.dev/source-type"] != "youtube" {
		t.Errorf("different labels share a map: %v", other.Labels)
	}
}

// TestSharedMapsStayBounded checks that many distinct maps do not grow the compactor without
// bound.
func TestSharedMapsStayBounded(t *testing.T) {
	c := New()
	for i := range 3 * maxSharedMaps {
		got := c.labelSet(map[string]string{"k": fmt.Sprint(i)})
		if got["k"] != fmt.Sprint(i) {
			t.Fatalf("label set %d: %v", i, got)
		}
	}
	if n := len(c.labels); n > maxSharedMaps {
		t.Fatalf("%d label sets remembered, want at most %d", n, maxSharedMaps)
	}
}

// BenchmarkCachedTranscript reports the heap one cached finished transcript takes, as decoded
// (baseline) and compacted, measured in the same run.
func BenchmarkCachedTranscript(b *testing.B) {
	const n = 10000
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i] = finished(i)
	}
	for _, tc := range []struct {
		name    string
		compact bool
	}{{"decoded", false}, {"compacted", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var perObject float64
			for b.Loop() {
				c := New()
				objs := make([]*tcsv1.Transcript, n)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for i := range objs {
					tr := decode(b, inputs[i])
					tr.ManagedFields = nil
					if tc.compact {
						c.Transcript(tr)
					}
					objs[i] = tr
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perObject = float64(after.HeapAlloc-before.HeapAlloc) / n
				runtime.KeepAlive(objs)
			}
			b.ReportMetric(perObject, "heap-bytes/transcript")
		})
	}
}
