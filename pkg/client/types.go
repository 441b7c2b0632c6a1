package client

import "encoding/json"

// Status is a transcript's processing status.
type Status string

// The statuses of a transcript.
const (
	StatusPending   Status = "pending"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
)

// AIPassStatus is the status of a transcript's AI validation pass.
type AIPassStatus string

// The statuses of an AI validation pass.
const (
	AIPassIdle      AIPassStatus = "idle"
	AIPassQueued    AIPassStatus = "queued"
	AIPassRunning   AIPassStatus = "running"
	AIPassCompleted AIPassStatus = "completed"
	AIPassFailed    AIPassStatus = "failed"
)

// SourceType is where a transcript's text comes from.
type SourceType string

// The source types of POST /api/v1/transcripts.
const (
	SourcePaste   SourceType = "paste"
	SourceYouTube SourceType = "youtube"
	SourceURL     SourceType = "url"
	SourceUpload  SourceType = "upload"
)

// JobStatus is the state of a background job.
type JobStatus string

// The states of a job.
const (
	JobQueued    JobStatus = "queued"
	JobRunning   JobStatus = "running"
	JobSucceeded JobStatus = "succeeded"
	JobFailed    JobStatus = "failed"
)

// Transcript is the API's transcript object. Content is nil where the API leaves it out
// (list items, pending transcripts).
type Transcript struct {
	ID             string          `json:"id"`
	Object         string          `json:"object"`
	Status         Status          `json:"status"`
	AIPassStatus   AIPassStatus    `json:"ai_pass_status"`
	Title          string          `json:"title"`
	SourceType     SourceType      `json:"source_type"`
	SourceFormat   string          `json:"source_format,omitempty"`
	SourceURL      string          `json:"source_url,omitempty"`
	Content        *string         `json:"content,omitempty"`
	ChangesSummary *ChangesSummary `json:"changes_summary,omitempty"`
	Review         *Review         `json:"review,omitempty"`
	Jobs           []JobRef        `json:"jobs,omitempty"`
	AIPass         *AIPass         `json:"ai_pass,omitempty"`
	Options        Options         `json:"options"`
	Error          *FailureReason  `json:"error,omitempty"`
	CreatedAt      string          `json:"created_at"`
	CompletedAt    *string         `json:"completed_at"`
}

// Done reports whether nothing more will happen to t without a new request: its status is
// completed or failed and no AI pass is queued or running.
func (t *Transcript) Done() bool {
	if t.Status != StatusCompleted && t.Status != StatusFailed {
		return false
	}
	return t.AIPassStatus != AIPassQueued && t.AIPassStatus != AIPassRunning
}

// Review is the review state of a completed transcript: people's decisions on its changes.
type Review struct {
	// Version is the review version, 0 before the first decision; send it with
	// [DecideRequest.ReviewVersion] so that decisions based on an older version are refused.
	Version int64 `json:"version"`
	// Undecided counts the suggestions no one decided on; Decided the changes with a decision.
	Undecided int `json:"undecided"`
	Decided   int `json:"decided"`
	// LastDecidedBy (an API key id, a member's email) and LastDecidedAt (RFC 3339) are the
	// latest decision's; nil before any.
	LastDecidedBy *string `json:"last_decided_by"`
	LastDecidedAt *string `json:"last_decided_at"`
}

// ChangesSummary counts a completed transcript's changes.
type ChangesSummary struct {
	Total       int            `json:"total"`
	AutoApplied int            `json:"auto_applied"`
	NeedsReview int            `json:"needs_review"`
	AIFlagged   int            `json:"ai_flagged"`
	ByCategory  map[string]int `json:"by_category"`
}

// AIPass is the outcome of a transcript's latest AI validation pass.
type AIPass struct {
	JobID      string         `json:"job_id"`
	Provider   string         `json:"provider,omitempty"`
	Model      string         `json:"model,omitempty"`
	Apply      bool           `json:"apply"`
	Confirmed  int            `json:"confirmed"`
	Rejected   int            `json:"rejected"`
	Uncertain  int            `json:"uncertain"`
	Proposed   int            `json:"proposed"`
	Usage      *TokenUsage    `json:"usage"`
	Error      *FailureReason `json:"error"`
	StartedAt  *string        `json:"started_at"`
	FinishedAt *string        `json:"finished_at"`
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

// Options are a transcript's processing options as the API reports them.
type Options struct {
	AIPass              AIPassOptions `json:"ai_pass"`
	NormalizeReferences bool          `json:"normalize_references"`
	Language            string        `json:"language,omitempty"`
	// Categories are the categories corrected, sorted; nil for every category.
	Categories []string `json:"categories,omitempty"`
	// Thresholds are the confidence bounds given; nil for none.
	Thresholds *Thresholds `json:"thresholds,omitempty"`
	// Metadata are the caller's own key-value pairs; empty for none.
	Metadata map[string]string `json:"metadata"`
}

// Thresholds are confidence bounds from 0 to 1 with at most three decimal places: a change is
// applied automatically only when the engine would apply it and its confidence is at least
// AutoApply, and a change below Suggest is dropped. A nil bound is not given.
type Thresholds struct {
	AutoApply *float64 `json:"auto_apply,omitempty"`
	Suggest   *float64 `json:"suggest,omitempty"`
}

// AIPassOptions configure the AI validation pass.
type AIPassOptions struct {
	Enabled bool `json:"enabled"`
	Apply   bool `json:"apply"`
}

// FailureReason says why a transcript or job failed.
type FailureReason struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Job is the API's job object.
type Job struct {
	ID           string         `json:"id"`
	Object       string         `json:"object"`
	Type         string         `json:"type"`
	Status       JobStatus      `json:"status"`
	Progress     int            `json:"progress"`
	TranscriptID string         `json:"transcript_id"`
	Error        *FailureReason `json:"error"`
	CreatedAt    string         `json:"created_at"`
	StartedAt    *string        `json:"started_at"`
	FinishedAt   *string        `json:"finished_at"`
}

// Change is one correction of a transcript.
type Change struct {
	Object      string  `json:"object"`
	ID          string  `json:"id"`
	Category    string  `json:"category"`
	Original    string  `json:"original"`
	Replacement string  `json:"replacement"`
	Start       int     `json:"start"`
	End         int     `json:"end"`
	Line        int     `json:"line"`
	Rule        string  `json:"rule"`
	Confidence  float64 `json:"confidence"`
	Status      string  `json:"status"`
	Applied     bool    `json:"applied"`
	AIVerdict   string  `json:"ai_verdict,omitempty"`
	AIReason    string  `json:"ai_reason,omitempty"`
	// Reference is the Bible reference a change of a book names, with normalize_references;
	// nil otherwise.
	Reference *Reference `json:"reference,omitempty"`
	// Decision is the latest review decision on the change; nil when there is none.
	Decision *ChangeDecision `json:"decision"`
}

// ChangeDecision is the latest review decision on a change.
type ChangeDecision struct {
	Action      string `json:"action"`
	Replacement string `json:"replacement,omitempty"`
	// By is who decided: an API key id, a member's email.
	By string `json:"by"`
	// At is when, RFC 3339 in UTC.
	At string `json:"at"`
}

// The actions of a [Decision].
const (
	// ActionAccept applies a suggestion (or keeps a change applied).
	ActionAccept = "accept"
	// ActionReject takes a change out of the content.
	ActionReject = "reject"
	// ActionReplace applies a change with the decision's replacement instead of its own.
	ActionReplace = "replace"
	// ActionAdd makes a new change over Start–End of the submitted content.
	ActionAdd = "add"
)

// Decision is one review decision: accept, reject or replace the change ChangeID, or add a
// change over the byte span Start–End of the submitted content (as a change's offsets).
type Decision struct {
	ChangeID    string `json:"change_id,omitempty"`
	Action      string `json:"action"`
	Replacement string `json:"replacement,omitempty"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	// Category is an added change's category; empty means custom.
	Category string `json:"category,omitempty"`
}

// MarshalJSON sends the span of an add only.
func (d Decision) MarshalJSON() ([]byte, error) {
	type plain Decision
	if d.Action == ActionAdd {
		return json.Marshal(plain(d))
	}
	return json.Marshal(struct {
		plain
		Start int `json:"start,omitempty"`
		End   int `json:"end,omitempty"`
	}{plain: plain(d)})
}

// DecideRequest is a batch of review decisions on a transcript.
type DecideRequest struct {
	// Decisions are applied in order; on one change the latest wins.
	Decisions []Decision `json:"decisions"`
	// ReviewVersion, when set, is the review version the decisions are based on
	// (Transcript.Review.Version): if someone decided since, the call fails with a conflict
	// (IsType(err, "conflict")) and nothing is recorded. Nil applies them to the latest version.
	ReviewVersion *int64 `json:"review_version,omitempty"`
}

// Reference is a Bible reference as the King James Version numbers its chapters and verses.
type Reference struct {
	Book       string `json:"book"`                  // canonical name, e.g. "1 Corinthians"
	OSIS       string `json:"osis"`                  // OSIS id, e.g. "1Cor.13.4-1Cor.13.7"
	Chapter    int    `json:"chapter"`               // 1-based
	ChapterEnd int    `json:"chapter_end,omitempty"` // last chapter of a range of chapters
	Verse      int    `json:"verse,omitempty"`       // first verse; 0 for a whole chapter
	VerseEnd   int    `json:"verse_end,omitempty"`   // last verse of a range of verses
}

// KeyMetadata describes the API key of a request (GET /api/v1/me).
type KeyMetadata struct {
	Object         string `json:"object"`
	APIKeyID       string `json:"api_key_id"`
	OrganizationID string `json:"organization_id"`
	Label          string `json:"label"`
}

// Health is the answer of the liveness check.
type Health struct {
	Status string `json:"status"`
}

// UploadGrant says where and how to upload the file of an upload transcript.
type UploadGrant struct {
	Object        string            `json:"object"`
	TranscriptID  string            `json:"transcript_id"`
	UploadURL     string            `json:"upload_url"`
	UploadMethod  string            `json:"upload_method"`
	UploadHeaders map[string]string `json:"upload_headers"`
	ExpiresAt     string            `json:"expires_at"`
	MaxBytes      int64             `json:"max_bytes"`
}

// DeletedTranscript is the answer of a soft delete.
type DeletedTranscript struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// List is one page of a list.
type List[T any] struct {
	Object  string `json:"object"`
	Data    []T    `json:"data"`
	HasMore bool   `json:"has_more"`
	URL     string `json:"url"`
}

// ProcessingOptions are the options of a create request; zero members take their defaults.
type ProcessingOptions struct {
	AIPass              *AIPassOptions `json:"ai_pass,omitempty"`
	NormalizeReferences bool           `json:"normalize_references,omitempty"`
	// Language is the caption language of a youtube source (BCP 47, default en).
	Language string `json:"language,omitempty"`
	// Categories, when set, are the only categories corrected: bible, place, person, or a
	// category of the organization's glossary.
	Categories []string `json:"categories,omitempty"`
	// Thresholds, when set, bound the confidence of automatic and suggested changes.
	Thresholds *Thresholds `json:"thresholds,omitempty"`
	// Metadata are your own key-value pairs (at most 20; keys of 1 to 40 bytes of letters,
	// digits, _, . and -; values of at most 500 bytes), shown on the transcript and usable as
	// a list filter (TranscriptFilter.Metadata).
	Metadata map[string]string `json:"metadata,omitempty"`
}

// PasteRequest creates a transcript from text; it is corrected in the create response.
type PasteRequest struct {
	Content string `json:"content"`
	Title   string `json:"title,omitempty"`
	// SourceFormat is txt, srt, vtt, markdown, html or json; empty means sniffed.
	SourceFormat string             `json:"source_format,omitempty"`
	Options      *ProcessingOptions `json:"options,omitempty"`
}

// YouTubeRequest creates a transcript from a YouTube video's captions.
type YouTubeRequest struct {
	URL     string             `json:"url"`
	Title   string             `json:"title,omitempty"`
	Options *ProcessingOptions `json:"options,omitempty"`
}

// URLRequest creates a transcript from a file on a public web server.
type URLRequest struct {
	URL string `json:"url"`
	// SourceFormat is required: txt, srt, vtt, markdown, html, json or docx.
	SourceFormat string             `json:"source_format"`
	Title        string             `json:"title,omitempty"`
	Options      *ProcessingOptions `json:"options,omitempty"`
}

// UploadRequest asks for an upload grant (step 1 of the upload flow).
type UploadRequest struct {
	// Filename is the file's name, without a path.
	Filename string `json:"filename"`
	// SourceFormat is empty to take it from Filename's extension, else sniff it.
	SourceFormat string             `json:"source_format,omitempty"`
	Title        string             `json:"title,omitempty"`
	Options      *ProcessingOptions `json:"options,omitempty"`
}

// ConfirmUploadRequest confirms an uploaded file (step 3 of the upload flow).
type ConfirmUploadRequest struct {
	TranscriptID string             `json:"transcript_id"`
	Options      *ProcessingOptions `json:"options,omitempty"`
}

// AIPassRequest triggers an AI validation pass; a nil Apply keeps the transcript's option.
type AIPassRequest struct {
	Apply *bool `json:"apply,omitempty"`
}
