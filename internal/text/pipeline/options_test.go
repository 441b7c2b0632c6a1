package pipeline

import (
	"reflect"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/correction"
)

func TestCorrectionOptionsMapsEveryOptionOfTheDeterministicPass(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   tcsv1.TranscriptOptions
		want correction.Options
	}{
		{"none", tcsv1.TranscriptOptions{}, correction.Options{}},
		{"references and categories", tcsv1.TranscriptOptions{NormalizeReferences: true, Categories: []string{"bible", "name"}},
			correction.Options{NormalizeReferences: true, Categories: []string{"bible", "name"}}},
		{"both thresholds", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.9", Suggest: "0.5"}},
			correction.Options{Thresholds: correction.Thresholds{AutoApply: 0.9, Suggest: 0.5}}},
		{"only auto_apply", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "1"}},
			correction.Options{Thresholds: correction.Thresholds{AutoApply: 1}}},
		{"only suggest", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.125"}},
			correction.Options{Thresholds: correction.Thresholds{Suggest: 0.125}}},
		{"a bound the CRD refuses", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "2", Suggest: "0.5"}},
			correction.Options{Thresholds: correction.Thresholds{Suggest: 0.5}}},
		{"options of other passes", tcsv1.TranscriptOptions{Language: "de", AIPass: tcsv1.AIPassOptions{Enabled: true}, Metadata: map[string]string{"a": "b"}},
			correction.Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CorrectionOptions(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("CorrectionOptions(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
