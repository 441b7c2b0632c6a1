package v1alpha1_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// transcript returns a valid transcript named after n with options o.
func transcript(ns string, n int, o tcsv1.TranscriptOptions) *tcsv1.Transcript {
	id := fmt.Sprintf("tr_v%d", n)
	return &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tcsv1.TranscriptName(id)},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: "org_v", Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste},
			Options: o},
	}
}

// metadata returns n pairs of keys k0, k1, … and value v.
func metadata(n int, v string) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = v
	}
	return m
}

// TestTheAPIServerValidatesTheNewOptionsAndTheReviewStatus creates transcripts with the
// options and review status of issue 22 on a real kube-apiserver with the generated CRDs.
func TestTheAPIServerValidatesTheNewOptionsAndTheReviewStatus(t *testing.T) {
	env, err := testenv.Start()
	if err != nil {
		t.Fatalf("these tests need the local control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "validation")

	cases := []struct {
		name string
		opts tcsv1.TranscriptOptions
		// refused is a part of the API server's message; empty means the options are accepted.
		refused string
	}{
		{"every new option at its bounds is accepted", tcsv1.TranscriptOptions{
			Categories: []string{"bible", "place", "church-names_2"},
			Thresholds: &tcsv1.Thresholds{AutoApply: "0.9", Suggest: "0.45"},
			Metadata: map[string]string{strings.Repeat("k", tcsv1.MaxMetadataKeyBytes): strings.Repeat("v", tcsv1.MaxMetadataValueBytes),
				strings.Repeat("é", tcsv1.MaxMetadataKeyBytes/2): strings.Repeat("é", tcsv1.MaxMetadataValueBytes/2)},
		}, ""},
		{"twenty metadata pairs are accepted", tcsv1.TranscriptOptions{Metadata: metadata(tcsv1.MaxMetadataKeys, "x")}, ""},
		{"twenty-one metadata pairs are refused", tcsv1.TranscriptOptions{Metadata: metadata(tcsv1.MaxMetadataKeys+1, "x")}, "spec.options.metadata"},
		{"a metadata key of 41 bytes is refused", tcsv1.TranscriptOptions{Metadata: map[string]string{strings.Repeat("k", tcsv1.MaxMetadataKeyBytes+1): "x"}}, "metadata keys are 1 to 40 bytes long"},
		{"a metadata key of 21 two-byte characters is refused", tcsv1.TranscriptOptions{Metadata: map[string]string{strings.Repeat("é", tcsv1.MaxMetadataKeyBytes/2+1): "x"}}, "metadata keys are 1 to 40 bytes long"},
		{"an empty metadata key is refused", tcsv1.TranscriptOptions{Metadata: map[string]string{"": "x"}}, "metadata keys are 1 to 40 bytes long"},
		{"a metadata value of 501 bytes is refused", tcsv1.TranscriptOptions{Metadata: map[string]string{"k": strings.Repeat("v", tcsv1.MaxMetadataValueBytes+1)}}, "metadata values are at most 500 bytes long"},
		{"a metadata value of 251 two-byte characters is refused", tcsv1.TranscriptOptions{Metadata: map[string]string{"k": strings.Repeat("é", tcsv1.MaxMetadataValueBytes/2+1)}}, "metadata values are at most 500 bytes long"},
		{"thresholds of 0 and 1 are accepted", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "1", Suggest: "0"}}, ""},
		{"a threshold alone is accepted", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.700"}}, ""},
		{"a threshold above 1 is refused", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "1.5"}}, "spec.options.thresholds.autoApply"},
		{"a threshold of four decimal places is refused", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.1234"}}, "spec.options.thresholds.suggest"},
		{"a threshold that is no number is refused", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "high"}}, "spec.options.thresholds.suggest"},
		{"a suggest threshold above the auto-apply one is refused", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.5", Suggest: "0.75"}}, "thresholds.suggest must not be above thresholds.autoApply"},
		{"a category in capitals is refused", tcsv1.TranscriptOptions{Categories: []string{"Bible"}}, "spec.options.categories[0]"},
		{"a category named twice is refused", tcsv1.TranscriptOptions{Categories: []string{"bible", "bible"}}, "Duplicate value"},
		{"thirty-three categories are refused", tcsv1.TranscriptOptions{Categories: func() []string {
			var cs []string
			for i := range tcsv1.MaxCategories + 1 {
				cs = append(cs, fmt.Sprintf("c%d", i))
			}
			return cs
		}()}, "spec.options.categories"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := transcript(ns, i, tc.opts)
			err := c.Create(t.Context(), tr)
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("creating the transcript: %v, want it accepted", err)
			case tc.refused != "" && err == nil:
				t.Fatalf("the transcript was accepted, want it refused with %q", tc.refused)
			case tc.refused != "" && !strings.Contains(err.Error(), tc.refused):
				t.Fatalf("creating the transcript: %v, want an error saying %q", err, tc.refused)
			}
			if tc.refused != "" {
				return
			}
			got := &tcsv1.Transcript{}
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(tr), got); err != nil {
				t.Fatal(err)
			}
			if !apiequality.Semantic.DeepEqual(got.Spec.Options, tc.opts) {
				t.Fatalf("stored options %+v, want %+v", got.Spec.Options, tc.opts)
			}
		})
	}

	t.Run("the review status is stored and its version never decreases", func(t *testing.T) {
		tr := transcript(ns, len(cases), tcsv1.TranscriptOptions{})
		if err := c.Create(t.Context(), tr); err != nil {
			t.Fatal(err)
		}
		at := metav1.NewTime(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
		review := &tcsv1.ReviewStatus{Version: 0, Undecided: 2, Decided: 1, LastDecidedBy: "key_abc", LastDecidedAt: &at,
			ChangesSummary: &tcsv1.ChangesSummary{Total: 3, AutoApplied: 1, NeedsReview: 2},
			BaseChangesRef: "b", ContentRef: "c", ChangesRef: "d", DecisionsRef: "e"}
		tr.Status.Review = review
		if err := c.Status().Update(t.Context(), tr); err == nil || !strings.Contains(err.Error(), "status.review.version") {
			t.Fatalf("storing review version 0: %v, want it refused naming status.review.version", err)
		}
		review.Version = 2
		if err := c.Status().Update(t.Context(), tr); err != nil {
			t.Fatalf("storing review version 2: %v", err)
		}
		got := &tcsv1.Transcript{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(tr), got); err != nil {
			t.Fatal(err)
		}
		if got.Status.Review == nil || got.Status.Review.Version != 2 || got.Status.Review.LastDecidedBy != "key_abc" ||
			!got.Status.Review.LastDecidedAt.Equal(&at) || got.Status.Review.DecisionsRef != "e" || got.Status.Review.ChangesSummary.NeedsReview != 2 {
			t.Fatalf("stored review %+v, want %+v", got.Status.Review, review)
		}
		got.Status.Review.Version = 1
		if err := c.Status().Update(t.Context(), got); err == nil || !strings.Contains(err.Error(), "review.version never decreases") {
			t.Fatalf("lowering the review version: %v, want it refused", err)
		}
	})
}
