package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SourceType is where a transcript's text comes from.
// +kubebuilder:validation:Enum=paste;youtube;url;upload
type SourceType string

// The source types of the API.
const (
	SourcePaste   SourceType = "paste"
	SourceYouTube SourceType = "youtube"
	SourceURL     SourceType = "url"
	SourceUpload  SourceType = "upload"
)

// Phase is a transcript's processing state; it is the API's status field.
// +kubebuilder:validation:Enum=pending;completed;failed
type Phase string

// The phases of a transcript.
const (
	PhasePending   Phase = "pending"
	PhaseCompleted Phase = "completed"
	PhaseFailed    Phase = "failed"
)

// AIPassStatus is the state of a transcript's AI validation pass.
// +kubebuilder:validation:Enum=idle;queued;running;completed;failed
type AIPassStatus string

// The states of the AI validation pass.
const (
	AIPassIdle      AIPassStatus = "idle"
	AIPassQueued    AIPassStatus = "queued"
	AIPassRunning   AIPassStatus = "running"
	AIPassCompleted AIPassStatus = "completed"
	AIPassFailed    AIPassStatus = "failed"
)

// Condition types of a Transcript.
const (
	// ConditionReady is true once the transcript is completed, false while pending or after a failure.
	ConditionReady = "Ready"
	// ConditionCorrected is true once the deterministic pass has written the corrected content.
	ConditionCorrected = "Corrected"
	// ConditionAIValidated is true once the latest AI validation pass completed, false while
	// one is queued or running or after it failed; absent before the first.
	ConditionAIValidated = "AIValidated"
)

// TranscriptSpec is what the client asked for; it does not change after creation, except the
// options of an upload grant, which its confirmation may complete (see Transcript).
type TranscriptSpec struct {
	// ID is the transcript's API id.
	// +kubebuilder:validation:Pattern=`^tr_[a-z0-9]+$`
	ID string `json:"id"`

	// Organization is the id (org_…) of the organization that owns the transcript.
	// +kubebuilder:validation:Pattern=`^org_[a-z0-9]+$`
	Organization string `json:"organization"`

	// Source says where the text comes from.
	Source TranscriptSource `json:"source"`

	// Options are the processing options of the create request.
	// +optional
	Options TranscriptOptions `json:"options,omitempty"`
}

// TranscriptSource describes a transcript's input.
type TranscriptSource struct {
	// Type is the source type.
	Type SourceType `json:"type"`

	// URL is the video or file address of youtube and url sources.
	// +optional
	URL string `json:"url,omitempty"`

	// Format is the source_format the client gave; empty means it is sniffed from the content.
	// +kubebuilder:validation:Enum="";txt;srt;vtt;markdown;html;json;docx
	// +optional
	Format string `json:"format,omitempty"`

	// Title is the title the client gave, if any.
	// +optional
	Title string `json:"title,omitempty"`

	// Filename is the name of an uploaded file.
	// +optional
	Filename string `json:"filename,omitempty"`

	// UploadExpiresAt is when the upload grant of an upload source expires.
	// +optional
	UploadExpiresAt *metav1.Time `json:"uploadExpiresAt,omitempty"`

	// InputRef is the object-store key of the submitted or fetched content.
	// +optional
	InputRef string `json:"inputRef,omitempty"`
}

// TranscriptOptions are the processing options of a transcript.
type TranscriptOptions struct {
	// AIPass configures the AI validation pass.
	// +optional
	AIPass AIPassOptions `json:"aiPass,omitempty"`

	// Language is the caption language of a youtube source (a BCP 47 tag; empty means en).
	// +optional
	Language string `json:"language,omitempty"`

	// NormalizeReferences rewrites spoken Bible references ("chapter thirteen verse four") as "13:4".
	// +optional
	NormalizeReferences bool `json:"normalizeReferences,omitempty"`

	// Categories limits the corrections to these categories (bible, place, or a category of
	// the organization's glossary); empty means every category.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=40
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9][a-z0-9_-]*$`
	Categories []string `json:"categories,omitempty"`

	// Thresholds are the confidence bounds that decide which changes are applied, suggested
	// or dropped; nil keeps the engine's own.
	// +optional
	Thresholds *Thresholds `json:"thresholds,omitempty"`

	// Metadata are the caller's own key-value pairs: at most 20, keys of 1 to 40 bytes,
	// values of at most 500 bytes (as Stripe bounds them).
	// +optional
	// +kubebuilder:validation:MaxProperties=20
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(bytes(k)) <= 40)",message="metadata keys are 1 to 40 bytes long"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(bytes(self[k])) <= 500)",message="metadata values are at most 500 bytes long"
	Metadata map[string]string `json:"metadata,omitempty"`
}

// The bounds of TranscriptOptions, as its validation markers state them.
const (
	// MaxCategories bounds Categories.
	MaxCategories = 32
	// MaxCategoryBytes bounds a category name.
	MaxCategoryBytes = 40
	// MaxMetadataKeys bounds the pairs of Metadata.
	MaxMetadataKeys = 20
	// MaxMetadataKeyBytes bounds a key of Metadata.
	MaxMetadataKeyBytes = 40
	// MaxMetadataValueBytes bounds a value of Metadata.
	MaxMetadataValueBytes = 500
)

// Thresholds are confidence bounds, each a decimal from 0 to 1 with at most three decimal
// places, written as a string ("0.85"): controller-gen refuses floats in CRDs and asks for
// them to be serialized as strings. ParseConfidence reads them.
// +kubebuilder:validation:XValidation:rule="!has(self.autoApply) || !has(self.suggest) || double(self.suggest) <= double(self.autoApply)",message="thresholds.suggest must not be above thresholds.autoApply"
type Thresholds struct {
	// AutoApply is the confidence from which a change is applied automatically; empty keeps
	// the engine's.
	// +optional
	// +kubebuilder:validation:MaxLength=5
	// +kubebuilder:validation:Pattern=`^(0(\.[0-9]{1,3})?|1(\.0{1,3})?)$`
	AutoApply string `json:"autoApply,omitempty"`
	// Suggest is the confidence from which a change is suggested; changes below it are
	// dropped. Empty keeps the engine's.
	// +optional
	// +kubebuilder:validation:MaxLength=5
	// +kubebuilder:validation:Pattern=`^(0(\.[0-9]{1,3})?|1(\.0{1,3})?)$`
	Suggest string `json:"suggest,omitempty"`
}

// AIPassOptions configures the AI validation pass.
type AIPassOptions struct {
	// Enabled queues the AI pass once the deterministic pass is done.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// Apply writes the pass's verdicts into the content.
	// +optional
	Apply bool `json:"apply,omitempty"`
}

// ChangesSummary counts the changes of a transcript; it is the API's changes_summary.
type ChangesSummary struct {
	Total       int `json:"total"`
	AutoApplied int `json:"autoApplied"`
	NeedsReview int `json:"needsReview"`
	AIFlagged   int `json:"aiFlagged"`
	// ByCategory counts the changes per category (bible, place, …).
	// +optional
	ByCategory map[string]int `json:"byCategory,omitempty"`
}

// Job is one background job of a transcript.
type Job struct {
	// ID is the job's API id (job_…).
	ID string `json:"id"`
	// Type is the job type: youtube_fetch, url_fetch, upload_ingest, correction or ai_pass.
	Type string `json:"type"`
	// State is the job's state.
	State JobState `json:"state"`
	// Attempts counts the runs of the job that ended in a transient error.
	// +optional
	Attempts int `json:"attempts,omitempty"`
	// NextAttemptAt is when the job, after a transient error, may run again; written with the
	// failed attempt, so that neither the reconcile that write brings nor a restart runs it
	// sooner. It has microseconds, as retries are seconds apart.
	// +optional
	NextAttemptAt *metav1.MicroTime `json:"nextAttemptAt,omitempty"`
	// Progress is the job's progress in percent.
	// +optional
	Progress int `json:"progress,omitempty"`
	// Error says why the job failed.
	// +optional
	Error string `json:"error,omitempty"`
	// CreatedAt is when the job was queued.
	CreatedAt metav1.Time `json:"createdAt"`
	// StartedAt is when the job started.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when the job ended.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// IdempotencyRecord names the idempotency record (kept in the results store) of the
	// request that queued the job, so that a retry of that request after a crash knows the job
	// is its own.
	// +optional
	IdempotencyRecord string `json:"idempotencyRecord,omitempty"`
}

// JobState is the state of a background job.
// +kubebuilder:validation:Enum=queued;running;succeeded;failed
type JobState string

// The states of a job.
const (
	JobQueued    JobState = "queued"
	JobRunning   JobState = "running"
	JobSucceeded JobState = "succeeded"
	JobFailed    JobState = "failed"
)

// Job types.
const (
	JobYouTubeFetch = "youtube_fetch"
	JobURLFetch     = "url_fetch"
	JobUploadIngest = "upload_ingest"
	JobCorrection   = "correction"
	JobAIPass       = "ai_pass"
)

// EmittedEvent is an event emitted for a transcript.
type EmittedEvent struct {
	// Type is the event type, such as transcript.completed.
	Type string `json:"type"`
	// Key tells apart events of one type that can happen more than once for a transcript:
	// the id of the ai_pass job for ai_pass.* events. Empty for the transcript.* events.
	// +optional
	Key string `json:"key,omitempty"`
	// State is the transcript's state the event announces, so that its webhook body shows
	// the transcript as it was then, not as it is when the body is written. It is kept only
	// until the event is dispatched.
	// +optional
	State *EventState `json:"state,omitempty"`
	// SameState says that the event announces the state of the event before it, whose State
	// (or that of the nearest earlier event with one) holds it: events emitted by one
	// transition keep one snapshot.
	// +optional
	SameState bool `json:"sameState,omitempty"`
	// Time is when the transition that emitted it was written.
	Time metav1.Time `json:"time"`
	// Dispatched is set once every delivery the event called for exists (or none was due):
	// the dispatcher drops State then and never looks at the event again.
	// +optional
	Dispatched bool `json:"dispatched,omitempty"`
}

// EventState is the part of a transcript's status an event's webhook body shows.
type EventState struct {
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// +optional
	AIPassStatus AIPassStatus `json:"aiPassStatus,omitempty"`
	// +optional
	ContentRef string `json:"contentRef,omitempty"`
	// +optional
	ChangesSummary *ChangesSummary `json:"changesSummary,omitempty"`
	// +optional
	AIPass *AIPassResult `json:"aiPass,omitempty"`
	// +optional
	Error *TranscriptError `json:"error,omitempty"`
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// Jobs is how many jobs the transcript had.
	// +optional
	Jobs int `json:"jobs,omitempty"`
	// Review is the review of the transcript then; nil before its first decision.
	// +optional
	Review *ReviewStatus `json:"review,omitempty"`
}

// TranscriptError is the error of a failed transcript, as the API shows it.
type TranscriptError struct {
	// Type is an API error type, such as unprocessable.
	Type string `json:"type"`
	// Message says what went wrong.
	Message string `json:"message"`
}

// TranscriptStatus is the observed state of a Transcript.
type TranscriptStatus struct {
	// Phase is the processing state, the API's status.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// AIPassStatus is the state of the AI validation pass.
	// +optional
	AIPassStatus AIPassStatus `json:"aiPassStatus,omitempty"`

	// Title is the effective title.
	// +optional
	Title string `json:"title,omitempty"`

	// Format is the effective source format (given or sniffed).
	// +optional
	Format string `json:"format,omitempty"`

	// Jobs are the transcript's background jobs.
	// +optional
	// +listType=map
	// +listMapKey=id
	Jobs []Job `json:"jobs,omitempty"`

	// ChangesSummary counts the corrections.
	// +optional
	ChangesSummary *ChangesSummary `json:"changesSummary,omitempty"`

	// ContentRef is the object-store key of the corrected content.
	// +optional
	ContentRef string `json:"contentRef,omitempty"`

	// ChangesRef is the object-store key of the change list (JSON).
	// +optional
	ChangesRef string `json:"changesRef,omitempty"`

	// Error says why the transcript failed.
	// +optional
	Error *TranscriptError `json:"error,omitempty"`

	// CompletedAt is when the deterministic pass finished.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`

	// AIPass is the outcome of the latest AI validation pass; nil before the first.
	// +optional
	AIPass *AIPassResult `json:"aiPass,omitempty"`

	// Review is the state of the review decisions; nil before the first.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.version >= oldSelf.version",message="review.version never decreases"
	Review *ReviewStatus `json:"review,omitempty"`

	// DeletedAt is when the transcript was soft-deleted.
	// +optional
	DeletedAt *metav1.Time `json:"deletedAt,omitempty"`

	// EmittedEvents are the events already emitted for this transcript, in order, so that a
	// repeated reconcile never emits one twice.
	// +optional
	// +listType=atomic
	EmittedEvents []EmittedEvent `json:"emittedEvents,omitempty"`

	// ObservedGeneration is the generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions describe the transcript's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// AIPassResult is the outcome of one AI validation pass.
type AIPassResult struct {
	// JobID is the id of the ai_pass job.
	JobID string `json:"jobID"`
	// Provider is the provider that gave the verdicts: openai or rules.
	// +optional
	Provider string `json:"provider,omitempty"`
	// Model is the model (or rule set) that gave the verdicts.
	// +optional
	Model string `json:"model,omitempty"`
	// Apply tells whether the verdicts are written into the content.
	// +optional
	Apply bool `json:"apply,omitempty"`
	// Confirmed, Rejected and Uncertain count the verdicts; Proposed counts the changes the
	// pass proposed itself.
	// +optional
	Confirmed int `json:"confirmed,omitempty"`
	// +optional
	Rejected int `json:"rejected,omitempty"`
	// +optional
	Uncertain int `json:"uncertain,omitempty"`
	// +optional
	Proposed int `json:"proposed,omitempty"`
	// Usage counts the tokens the provider consumed.
	// +optional
	Usage *TokenUsage `json:"usage,omitempty"`
	// Error says why the pass failed.
	// +optional
	Error *TranscriptError `json:"error,omitempty"`
	// StartedAt is when the pass started running.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when the pass ended.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
}

// ReviewStatus is the state of a transcript's review: the decisions people made on its
// changes, and the content and change list recomputed from them. Each call that records
// decisions makes a new version, whose objects are stored before the status names them.
type ReviewStatus struct {
	// Version is the number of the current review version, from 1.
	// +kubebuilder:validation:Minimum=1
	Version int64 `json:"version"`
	// Undecided counts the suggestions no one has decided on yet.
	// +kubebuilder:validation:Minimum=0
	Undecided int `json:"undecided"`
	// Decided counts the changes with a decision, the added ones included.
	// +kubebuilder:validation:Minimum=0
	Decided int `json:"decided"`
	// LastDecidedBy is who made the latest decision (an API key id, a member's email).
	// +optional
	LastDecidedBy string `json:"lastDecidedBy,omitempty"`
	// LastDecidedAt is when the latest decision was made.
	// +optional
	LastDecidedAt *metav1.Time `json:"lastDecidedAt,omitempty"`
	// ChangesSummary counts the changes as the review left them.
	// +optional
	ChangesSummary *ChangesSummary `json:"changesSummary,omitempty"`
	// BaseChangesRef is the object-store key of the change list the decisions apply to (the
	// deterministic pass's or the AI pass's); when the transcript's changesRef moves on, the
	// decisions must be applied again.
	BaseChangesRef string `json:"baseChangesRef"`
	// ContentRef is the object-store key of the reviewed content.
	ContentRef string `json:"contentRef"`
	// ChangesRef is the object-store key of the change list with the decisions (JSON).
	ChangesRef string `json:"changesRef"`
	// DecisionsRef is the object-store key of the log of decisions (JSON), in the order made.
	DecisionsRef string `json:"decisionsRef"`
}

// TokenUsage counts the tokens of a provider's calls.
type TokenUsage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	TotalTokens      int64 `json:"totalTokens"`
	// Requests counts the provider calls.
	Requests int `json:"requests"`
}

// Transcript is a submitted transcript and the state of its correction. Its spec does not
// change, except the options of an upload that is not confirmed yet (no phase).
// +kubebuilder:object:root=true
// +kubebuilder:validation:XValidation:rule="self.spec == oldSelf.spec || (oldSelf.spec.source.type == 'upload' && (!has(oldSelf.status) || !has(oldSelf.status.phase) || size(oldSelf.status.phase) == 0) && self.spec.id == oldSelf.spec.id && self.spec.organization == oldSelf.spec.organization && self.spec.source == oldSelf.spec.source)",message="spec is immutable (only the options of an upload may change, until it is confirmed)"
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tr,categories=tcs
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.source.type`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="AI",type=string,JSONPath=`.status.aiPassStatus`
// +kubebuilder:printcolumn:name="Changes",type=integer,JSONPath=`.status.changesSummary.total`
// +kubebuilder:printcolumn:name="Flagged",type=integer,JSONPath=`.status.changesSummary.aiFlagged`,priority=1
// +kubebuilder:printcolumn:name="Title",type=string,JSONPath=`.status.title`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Transcript struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TranscriptSpec   `json:"spec,omitempty"`
	Status TranscriptStatus `json:"status,omitempty"`
}

// TranscriptList is a list of Transcripts.
// +kubebuilder:object:root=true
type TranscriptList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Transcript `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Transcript{}, &TranscriptList{})
}
