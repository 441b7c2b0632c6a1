package statuspatch

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestDiffSendsOnlyWhatChanged(t *testing.T) {
	now := metav1.Unix(1700000000, 0)
	base := func() *tcsv1.Transcript {
		return &tcsv1.Transcript{
			ObjectMeta: metav1.ObjectMeta{Name: "tr-a", Namespace: "ns", ResourceVersion: "42", Generation: 1},
			Spec:       tcsv1.TranscriptSpec{ID: "tr_a", Organization: "org_a"},
			Status: tcsv1.TranscriptStatus{
				Phase: tcsv1.PhasePending, AIPassStatus: tcsv1.AIPassIdle, Title: "t",
				Jobs:  []tcsv1.Job{{ID: "job_a01", Type: tcsv1.JobURLFetch, State: tcsv1.JobRunning, CreatedAt: now}},
				Error: &tcsv1.TranscriptError{Type: "x", Message: "y"},
			},
		}
	}
	cases := []struct {
		name   string
		mutate func(*tcsv1.Transcript)
		opts   []Option
		want   string // the patch; "" for none
	}{
		{"nothing changed", func(*tcsv1.Transcript) {}, nil, ""},
		{"a spec or metadata change is not a status change", func(t *tcsv1.Transcript) {
			t.Spec.Options.Language = "de"
			t.Labels = map[string]string{"a": "b"}
		}, nil, ""},
		{"one scalar: no resourceVersion", func(t *tcsv1.Transcript) { t.Status.Title = "new" }, nil,
			`{"status":{"title":"new"}}`},
		{"a nested field", func(t *tcsv1.Transcript) {
			t.Status.AIPass = &tcsv1.AIPassResult{JobID: "job_a02", Confirmed: 3}
		}, nil, `{"status":{"aiPass":{"confirmed":3,"jobID":"job_a02"}}}`},
		{"a removed field is null", func(t *tcsv1.Transcript) { t.Status.Error = nil }, nil,
			`{"status":{"error":null}}`},
		{"a locked scalar carries the resourceVersion", func(t *tcsv1.Transcript) { t.Status.Title = "new" }, []Option{Locked},
			`{"metadata":{"resourceVersion":"42"},"status":{"title":"new"}}`},
		{"a list carries the resourceVersion", func(t *tcsv1.Transcript) { t.Status.Jobs[0].Progress = 50 }, nil,
			`{"metadata":{"resourceVersion":"42"},"status":{"jobs":[{"createdAt":"2023-11-14T22:13:20Z","id":"job_a01","progress":50,"state":"running","type":"url_fetch"}]}}`},
		{"a condition carries the resourceVersion", func(t *tcsv1.Transcript) {
			t.SetCondition(tcsv1.ConditionReady, metav1.ConditionFalse, "Pending", "p")
			t.Status.Conditions[0].LastTransitionTime = now
		}, nil,
			`{"metadata":{"resourceVersion":"42"},"status":{"conditions":[{"lastTransitionTime":"2023-11-14T22:13:20Z","message":"p","observedGeneration":1,"reason":"Pending","status":"False","type":"Ready"}]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := base()
			after := before.DeepCopy()
			tc.mutate(after)
			got, err := Diff(before, after, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if got != nil {
					t.Fatalf("patch %s, want none", got)
				}
				return
			}
			if !jsonEqual(t, got, tc.want) {
				t.Fatalf("patch\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

func jsonEqual(t *testing.T, a []byte, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
