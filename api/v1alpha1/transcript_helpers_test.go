package v1alpha1

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestJobIDRoundTrip(t *testing.T) {
	for _, tr := range []string{"tr_mhz0k2a1bcdefghijklm", "tr_mhz0k2a1bcdefghij123", "tr_abc"} {
		for _, seq := range []int{1, 9, 10, 99, 100, 101, 999, 1000, 12345} {
			id := JobID(tr, seq)
			if !slices.Contains(TranscriptIDsOfJob(id), tr) {
				t.Errorf("TranscriptIDsOfJob(%q) = %v, want it to hold %q", id, TranscriptIDsOfJob(id), tr)
			}
		}
	}
	// Ids made before the 100th job keep their form and their reading.
	if got := JobID("tr_abc", 7); got != "job_abc07" {
		t.Errorf("JobID = %q, want job_abc07", got)
	}
	if got := TranscriptIDsOfJob("job_abc07"); !slices.Equal(got, []string{"tr_abc"}) {
		t.Errorf("TranscriptIDsOfJob(job_abc07) = %v", got)
	}
	for _, bad := range []string{"job_", "job_a", "job_ab", "jb_abc01", "job_abc1x", "job_01"} {
		if got := TranscriptIDsOfJob(bad); len(got) != 0 {
			t.Errorf("TranscriptIDsOfJob(%q) = %v, want none", bad, got)
		}
	}
}

func TestAJobIDOfManyDigitsLeadsToAFewTranscripts(t *testing.T) {
	id := "job_" + strings.Repeat("1", 55)
	if got := TranscriptIDsOfJob(id); len(got) > MaxJobSeqDigits-1 {
		t.Fatalf("TranscriptIDsOfJob of a job id of 55 digits gives %d candidates, want at most %d", len(got), MaxJobSeqDigits-1)
	}
}

// TestEndOnSoftDeleteEndsAWaitingRetry soft-deletes a pending transcript whose fetch job is
// running or waits for its next attempt: the job fails and no next attempt is left on it.
func TestEndOnSoftDeleteEndsAWaitingRetry(t *testing.T) {
	now := metav1.Now()
	next := metav1.NewMicroTime(now.Add(4 * time.Second))
	for _, tc := range []struct {
		name string
		job  Job
	}{
		{"running", Job{ID: "job_abc01", Type: JobURLFetch, State: JobRunning}},
		{"waiting for a retry", Job{ID: "job_abc01", Type: JobYouTubeFetch, State: JobRunning, Attempts: 2, Error: "YouTube answered status 503", NextAttemptAt: &next}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Transcript{Spec: TranscriptSpec{ID: "tr_abc"}, Status: TranscriptStatus{
				Phase: PhasePending, Jobs: []Job{tc.job}, DeletedAt: &now}}
			if !tr.EndOnSoftDelete(now) {
				t.Fatal("EndOnSoftDelete changed nothing")
			}
			j := tr.Status.Jobs[0]
			if tr.Status.Phase != PhaseFailed || j.State != JobFailed || j.Error != DeletedBeforeCompleted || j.NextAttemptAt != nil {
				t.Errorf("phase %s, job %+v; want failed, the job failed with no next attempt", tr.Status.Phase, j)
			}
		})
	}
}

func FuzzTranscriptIDsOfJob(f *testing.F) {
	for _, s := range []string{"job_abc07", "job_mhz0k2a1bcdefghij12301", "job_" + strings.Repeat("9", 59), "job_", "jb_abc01", "job_abc1x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		got := TranscriptIDsOfJob(id)
		if len(got) > MaxJobSeqDigits-1 {
			t.Fatalf("TranscriptIDsOfJob(%q) gives %d candidates", id, len(got))
		}
		for _, tr := range got {
			rest := strings.TrimPrefix(tr, "tr_")
			if !strings.HasPrefix(tr, "tr_") || rest == "" || !strings.HasPrefix(id, "job_"+rest) {
				t.Fatalf("TranscriptIDsOfJob(%q) gives %q", id, tr)
			}
			seq, err := strconv.Atoi(strings.TrimPrefix(id, "job_"+rest))
			if err != nil || JobID(tr, seq) != id {
				t.Fatalf("TranscriptIDsOfJob(%q) gives %q, which does not lead back to it", id, tr)
			}
		}
	})
}

func TestParseConfidence(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"0.85", 0.85, true}, {"0.5", 0.5, true}, {"0.125", 0.125, true},
		{"1.0", 1, true}, {"1.000", 1, true},
		{"", 0, false}, {"1.5", 0, false}, {"1.001", 0, false}, {"0.1234", 0, false}, {"0.", 0, false},
		{".5", 0, false}, {"-0.5", 0, false}, {"2", 0, false}, {"0.5e1", 0, false}, {"0,5", 0, false}, {" 0.5", 0, false},
	} {
		got, err := ParseConfidence(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseConfidence(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestTranscriptOptionsEqualComparesEveryField(t *testing.T) {
	base := func() TranscriptOptions {
		return TranscriptOptions{AIPass: AIPassOptions{Enabled: true}, Language: "en", Categories: []string{"bible"},
			Thresholds: &Thresholds{AutoApply: "0.9"}, Metadata: map[string]string{"a": "b"}}
	}
	if !base().Equal(base()) {
		t.Fatal("equal options are not Equal")
	}
	if !(TranscriptOptions{Categories: []string{}, Metadata: map[string]string{}}).Equal(TranscriptOptions{}) {
		t.Error("empty and nil lists and maps are not Equal")
	}
	for name, change := range map[string]func(*TranscriptOptions){
		"ai pass":              func(o *TranscriptOptions) { o.AIPass.Apply = true },
		"language":             func(o *TranscriptOptions) { o.Language = "de" },
		"normalize references": func(o *TranscriptOptions) { o.NormalizeReferences = true },
		"categories":           func(o *TranscriptOptions) { o.Categories = append(o.Categories, "place") },
		"no thresholds":        func(o *TranscriptOptions) { o.Thresholds = nil },
		"a threshold":          func(o *TranscriptOptions) { o.Thresholds.Suggest = "0.5" },
		"metadata":             func(o *TranscriptOptions) { o.Metadata["a"] = "c" },
	} {
		o := base()
		change(&o)
		if o.Equal(base()) || base().Equal(o) {
			t.Errorf("options that differ in %s are Equal", name)
		}
	}
}

func TestValidCategoryAndMetadataKey(t *testing.T) {
	for _, tc := range []struct {
		in                string
		category, metaKey bool
	}{
		{"bible", true, true}, {"place", true, true}, {"church-names", true, true}, {"hymns_2024", true, true},
		{"0a", true, true}, {"", false, false}, {"Bible", false, true}, {"-bible", false, true}, {"_x", false, true},
		{"a.b", false, true}, {"a b", false, false}, {"a]b", false, false}, {"é", false, false},
		{strings.Repeat("a", 40), true, true}, {strings.Repeat("a", 41), false, false},
	} {
		if got := ValidCategory(tc.in); got != tc.category {
			t.Errorf("ValidCategory(%q) = %v; want %v", tc.in, got, tc.category)
		}
		if got := ValidMetadataKey(tc.in); got != tc.metaKey {
			t.Errorf("ValidMetadataKey(%q) = %v; want %v", tc.in, got, tc.metaKey)
		}
	}
}
