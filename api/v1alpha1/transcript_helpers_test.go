package v1alpha1

import (
	"slices"
	"testing"
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
