// Package apiview renders tcs resources as the API's JSON objects, for the REST front-end and
// for webhook payloads alike.
package apiview

import (
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Transcript is the API's transcript object.
type Transcript struct {
	ID             string             `json:"id"`
	Object         string             `json:"object"`
	Status         tcsv1.Phase        `json:"status"`
	AIPassStatus   tcsv1.AIPassStatus `json:"ai_pass_status"`
	Title          string             `json:"title"`
	SourceType     tcsv1.SourceType   `json:"source_type"`
	SourceFormat   string             `json:"source_format,omitempty"`
	SourceURL      string             `json:"source_url,omitempty"`
	Content        *string            `json:"content,omitempty"`
	ChangesSummary *ChangesSummary    `json:"changes_summary,omitempty"`
	Review         *Review            `json:"review,omitempty"`
	Jobs           []JobRef           `json:"jobs,omitempty"`
	AIPass         *AIPass            `json:"ai_pass,omitempty"`
	Options        Options            `json:"options"`
	Error          *Error             `json:"error,omitempty"`
	CreatedAt      string             `json:"created_at"`
	CompletedAt    *string            `json:"completed_at"`
}

// ChangesSummary is the changes_summary of a transcript.
type ChangesSummary struct {
	Total       int            `json:"total"`
	AutoApplied int            `json:"auto_applied"`
	NeedsReview int            `json:"needs_review"`
	AIFlagged   int            `json:"ai_flagged"`
	ByCategory  map[string]int `json:"by_category"`
}

// Review is the review state of a completed transcript: its version (0 before any decision,
// as its ETag "r<version>" gives it), the suggestions no one decided on, the changes decided,
// and the latest decision's author and time.
type Review struct {
	Version       int64   `json:"version"`
	Undecided     int     `json:"undecided"`
	Decided       int     `json:"decided"`
	LastDecidedBy *string `json:"last_decided_by"`
	LastDecidedAt *string `json:"last_decided_at"`
}

// NewReview renders the review of t; nil unless t is completed.
func NewReview(t *tcsv1.Transcript) *Review {
	if t.Status.Phase != tcsv1.PhaseCompleted {
		return nil
	}
	v := &Review{Version: t.ReviewVersion(), Undecided: t.Undecided()}
	if r := t.Status.Review; r != nil {
		if t.ReviewInForce() != nil {
			v.Decided = r.Decided
		}
		if r.LastDecidedBy != "" {
			by := r.LastDecidedBy
			v.LastDecidedBy = &by
		}
		v.LastDecidedAt = OptionalTimestamp(r.LastDecidedAt)
	}
	return v
}

// AIPass is the outcome of a transcript's latest AI validation pass.
type AIPass struct {
	JobID      string      `json:"job_id"`
	Provider   string      `json:"provider,omitempty"`
	Model      string      `json:"model,omitempty"`
	Apply      bool        `json:"apply"`
	Confirmed  int         `json:"confirmed"`
	Rejected   int         `json:"rejected"`
	Uncertain  int         `json:"uncertain"`
	Proposed   int         `json:"proposed"`
	Usage      *TokenUsage `json:"usage"`
	Error      *Error      `json:"error"`
	StartedAt  *string     `json:"started_at"`
	FinishedAt *string     `json:"finished_at"`
}

// TokenUsage counts the tokens an AI pass consumed.
type TokenUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	Requests         int   `json:"requests"`
}

// JobRef names a job in a transcript's jobs array.
type JobRef struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// Options are a transcript's processing options.
type Options struct {
	AIPass              AIPassOptions `json:"ai_pass"`
	NormalizeReferences bool          `json:"normalize_references"`
	Language            string        `json:"language,omitempty"`
	// Categories are the categories corrected, absent for every category.
	Categories []string `json:"categories,omitempty"`
	// Thresholds are the confidence bounds given, absent for none.
	Thresholds *Thresholds `json:"thresholds,omitempty"`
	// Metadata are the caller's own pairs, an empty object for none.
	Metadata map[string]string `json:"metadata"`
}

// Thresholds are the confidence bounds of a transcript's options; a bound not given is absent.
type Thresholds struct {
	AutoApply *float64 `json:"auto_apply,omitempty"`
	Suggest   *float64 `json:"suggest,omitempty"`
}

// NewOptions renders a transcript's options.
func NewOptions(o tcsv1.TranscriptOptions) Options {
	v := Options{
		AIPass:              AIPassOptions{Enabled: o.AIPass.Enabled, Apply: o.AIPass.Apply},
		NormalizeReferences: o.NormalizeReferences,
		Language:            o.Language,
		Categories:          slices.Clone(o.Categories),
		Metadata:            maps.Clone(o.Metadata),
	}
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	if t := o.Thresholds; t != nil {
		v.Thresholds = &Thresholds{AutoApply: confidence(t.AutoApply), Suggest: confidence(t.Suggest)}
		if v.Thresholds.AutoApply == nil && v.Thresholds.Suggest == nil {
			v.Thresholds = nil
		}
	}
	return v
}

// confidence reads a threshold of tcsv1.Thresholds; nil when it is empty (or not one).
func confidence(s string) *float64 {
	v, err := tcsv1.ParseConfidence(s)
	if err != nil {
		return nil
	}
	return &v
}

// AIPassOptions configure the AI validation pass.
type AIPassOptions struct {
	Enabled bool `json:"enabled"`
	Apply   bool `json:"apply"`
}

// Error is the error of a failed transcript or job.
type Error struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Timestamp renders t as the API does: RFC 3339 in UTC.
func Timestamp(t metav1.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// NewTranscript renders t; content is the corrected text, or nil when it is not shown.
func NewTranscript(t *tcsv1.Transcript, content *string) Transcript {
	v := Transcript{
		ID:           t.Spec.ID,
		Object:       "transcript",
		Status:       t.Status.Phase,
		AIPassStatus: t.Status.AIPassStatus,
		Title:        t.Status.Title,
		SourceType:   t.Spec.Source.Type,
		SourceFormat: t.Status.Format,
		SourceURL:    t.Spec.Source.URL,
		Content:      content,
		Options:      NewOptions(t.Spec.Options),
		CreatedAt:    Timestamp(t.Created()),
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
	if s := t.ShownChangesSummary(); s != nil && t.Status.Phase == tcsv1.PhaseCompleted {
		by := make(map[string]int, len(s.ByCategory))
		for k, n := range s.ByCategory {
			by[k] = n
		}
		v.ChangesSummary = &ChangesSummary{Total: s.Total, AutoApplied: s.AutoApplied, NeedsReview: s.NeedsReview, AIFlagged: s.AIFlagged, ByCategory: by}
	}
	for _, j := range t.Status.Jobs {
		v.Jobs = append(v.Jobs, JobRef{ID: j.ID, Type: j.Type})
	}
	if e := t.Status.Error; e != nil {
		v.Error = &Error{Type: e.Type, Message: e.Message}
	}
	if a := t.Status.AIPass; a != nil {
		v.AIPass = &AIPass{JobID: a.JobID, Provider: a.Provider, Model: a.Model, Apply: a.Apply,
			Confirmed: a.Confirmed, Rejected: a.Rejected, Uncertain: a.Uncertain, Proposed: a.Proposed,
			StartedAt: OptionalTimestamp(a.StartedAt), FinishedAt: OptionalTimestamp(a.FinishedAt)}
		if u := a.Usage; u != nil {
			v.AIPass.Usage = &TokenUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens, Requests: u.Requests}
		}
		if e := a.Error; e != nil {
			v.AIPass.Error = &Error{Type: e.Type, Message: e.Message}
		}
	}
	v.Review = NewReview(t)
	v.CompletedAt = OptionalTimestamp(t.Status.CompletedAt)
	return v
}

// Job is the API's job object.
type Job struct {
	ID           string         `json:"id"`
	Object       string         `json:"object"`
	Type         string         `json:"type"`
	Status       tcsv1.JobState `json:"status"`
	Progress     int            `json:"progress"`
	TranscriptID string         `json:"transcript_id"`
	Error        *Error         `json:"error"`
	CreatedAt    string         `json:"created_at"`
	StartedAt    *string        `json:"started_at"`
	FinishedAt   *string        `json:"finished_at"`
}

// OptionalTimestamp renders t, or nil (JSON null) when t is nil.
func OptionalTimestamp(t *metav1.Time) *string {
	if t == nil {
		return nil
	}
	s := Timestamp(*t)
	return &s
}

// NewJob renders job j of transcript t.
func NewJob(t *tcsv1.Transcript, j *tcsv1.Job) Job {
	v := Job{
		ID: j.ID, Object: "job", Type: j.Type, Status: j.State, Progress: j.Progress, TranscriptID: t.Spec.ID,
		CreatedAt: Timestamp(j.CreatedAt), StartedAt: OptionalTimestamp(j.StartedAt), FinishedAt: OptionalTimestamp(j.FinishedAt),
	}
	if j.State == tcsv1.JobFailed {
		typ := "server_error"
		switch {
		case j.Type == tcsv1.JobAIPass:
			if a := t.Status.AIPass; a != nil && a.JobID == j.ID && a.Error != nil {
				typ = a.Error.Type
			}
		case t.Status.Error != nil:
			typ = t.Status.Error.Type
		}
		v.Error = &Error{Type: typ, Message: j.Error}
	}
	return v
}

// MaxEcho is the most bytes of a request's own input (an id, a query value, a header, the
// name of a member) that an error message repeats: more is cut, so that an answer stays small
// whatever was sent.
const MaxEcho = 64

// Clip returns s cut to at most MaxEcho bytes, on a rune boundary, with "…" appended when cut.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Quote returns s, clipped, as a quoted Go string: the way error messages repeat input.
func Quote(s string) string { return strconv.Quote(Clip(s)) }
