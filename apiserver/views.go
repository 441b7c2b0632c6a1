package apiserver

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// transcriptView is the API's transcript object.
type transcriptView struct {
	ID             string             `json:"id"`
	Object         string             `json:"object"`
	Status         tcsv1.Phase        `json:"status"`
	AIPassStatus   tcsv1.AIPassStatus `json:"ai_pass_status"`
	Title          string             `json:"title"`
	SourceType     tcsv1.SourceType   `json:"source_type"`
	SourceFormat   string             `json:"source_format,omitempty"`
	SourceURL      string             `json:"source_url,omitempty"`
	Content        *string            `json:"content,omitempty"`
	ChangesSummary *summaryView       `json:"changes_summary,omitempty"`
	Jobs           []jobView          `json:"jobs,omitempty"`
	Options        optionsView        `json:"options"`
	Error          *transcriptErrView `json:"error,omitempty"`
	CreatedAt      string             `json:"created_at"`
	CompletedAt    *string            `json:"completed_at"`
}

type summaryView struct {
	Total       int            `json:"total"`
	AutoApplied int            `json:"auto_applied"`
	NeedsReview int            `json:"needs_review"`
	AIFlagged   int            `json:"ai_flagged"`
	ByCategory  map[string]int `json:"by_category"`
}

type jobView struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type optionsView struct {
	AIPass              aiPassView `json:"ai_pass"`
	NormalizeReferences bool       `json:"normalize_references"`
	Language            string     `json:"language,omitempty"`
}

type aiPassView struct {
	Enabled bool `json:"enabled"`
	Apply   bool `json:"apply"`
}

type transcriptErrView struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func timestamp(t metav1.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// viewTranscript renders t; content is the corrected text, or nil when it is not shown.
func viewTranscript(t *tcsv1.Transcript, content *string) transcriptView {
	v := transcriptView{
		ID:           t.Spec.ID,
		Object:       "transcript",
		Status:       t.Status.Phase,
		AIPassStatus: t.Status.AIPassStatus,
		Title:        t.Status.Title,
		SourceType:   t.Spec.Source.Type,
		SourceFormat: t.Status.Format,
		SourceURL:    t.Spec.Source.URL,
		Content:      content,
		Options: optionsView{
			AIPass:              aiPassView{Enabled: t.Spec.Options.AIPass.Enabled, Apply: t.Spec.Options.AIPass.Apply},
			NormalizeReferences: t.Spec.Options.NormalizeReferences,
			Language:            t.Spec.Options.Language,
		},
		CreatedAt: timestamp(t.CreationTimestamp),
	}
	if v.Status == "" {
		v.Status = tcsv1.PhasePending
	}
	if v.AIPassStatus == "" {
		v.AIPassStatus = tcsv1.AIPassIdle
	}
	if v.Title == "" {
		v.Title = t.Spec.Source.Title
	}
	if v.SourceFormat == "" {
		v.SourceFormat = t.Spec.Source.Format
	}
	if s := t.Status.ChangesSummary; s != nil && t.Status.Phase == tcsv1.PhaseCompleted {
		by := make(map[string]int, len(s.ByCategory))
		for k, n := range s.ByCategory {
			by[k] = n
		}
		v.ChangesSummary = &summaryView{Total: s.Total, AutoApplied: s.AutoApplied, NeedsReview: s.NeedsReview, AIFlagged: s.AIFlagged, ByCategory: by}
	}
	for _, j := range t.Status.Jobs {
		v.Jobs = append(v.Jobs, jobView{ID: j.ID, Type: j.Type})
	}
	if e := t.Status.Error; e != nil {
		v.Error = &transcriptErrView{Type: e.Type, Message: e.Message}
	}
	v.CompletedAt = optionalTimestamp(t.Status.CompletedAt)
	return v
}

// jobView is the API's job object.
type jobDetailView struct {
	ID           string             `json:"id"`
	Object       string             `json:"object"`
	Type         string             `json:"type"`
	Status       tcsv1.JobState     `json:"status"`
	Progress     int                `json:"progress"`
	TranscriptID string             `json:"transcript_id"`
	Error        *transcriptErrView `json:"error"`
	CreatedAt    string             `json:"created_at"`
	StartedAt    *string            `json:"started_at"`
	FinishedAt   *string            `json:"finished_at"`
}

func optionalTimestamp(t *metav1.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

func viewJob(t *tcsv1.Transcript, j *tcsv1.Job) jobDetailView {
	v := jobDetailView{
		ID: j.ID, Object: "job", Type: j.Type, Status: j.State, Progress: j.Progress, TranscriptID: t.Spec.ID,
		CreatedAt: timestamp(j.CreatedAt), StartedAt: optionalTimestamp(j.StartedAt), FinishedAt: optionalTimestamp(j.FinishedAt),
	}
	if j.State == tcsv1.JobFailed {
		typ := "server_error"
		if t.Status.Error != nil {
			typ = t.Status.Error.Type
		}
		v.Error = &transcriptErrView{Type: typ, Message: j.Error}
	}
	return v
}
