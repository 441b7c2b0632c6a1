package apiserver

import (
	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/metrics"
)

// transcriptEnded records t, just written in a final phase by the API server, in the metrics
// and, completed, as a Corrected Event.
func (s *Server) transcriptEnded(t *tcsv1.Transcript) {
	outcome := metrics.OutcomeCompleted
	if t.Status.Phase == tcsv1.PhaseFailed {
		outcome = metrics.OutcomeFailed
	}
	s.metrics.TranscriptEnded(string(t.Spec.Source.Type), outcome, s.clock.Now().Sub(t.CreationTimestamp.Time))
	if outcome == metrics.OutcomeCompleted {
		recorder.Corrected(s.recorder, t)
	}
}
