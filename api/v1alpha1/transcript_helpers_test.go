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
