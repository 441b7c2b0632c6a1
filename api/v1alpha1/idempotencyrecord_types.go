package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IdempotencyRecordSpec identifies one request made with an Idempotency-Key.
type IdempotencyRecordSpec struct {
	// Organization is the id of the organization that sent the request.
	Organization string `json:"organization"`
	// Route is the method and path of the request, e.g. "POST /api/v1/transcripts".
	Route string `json:"route"`
	// KeyHash is the SHA-256 (hex) of the Idempotency-Key; the key itself is not kept.
	KeyHash string `json:"keyHash"`
	// ExpiresAt is when the record stops replaying and is garbage-collected.
	ExpiresAt metav1.Time `json:"expiresAt"`
	// TranscriptID is the id a request that creates a transcript gives it. It is chosen before
	// the transcript is created, so that a retry of a request that died makes the same one.
	// +optional
	TranscriptID string `json:"transcriptID,omitempty"`
}

// IdempotencyState is the state of a recorded request.
// +kubebuilder:validation:Enum=in_progress;completed;interrupted
type IdempotencyState string

// The states of a recorded request. A request in progress renews its heartbeat; one whose
// heartbeat stopped died with its process. An interrupted request ended without a response to
// replay (a 500, a 504, a refusal to retry): the next request with the key runs again, resuming
// what the first one did with the same transcript id.
const (
	IdempotencyInProgress  IdempotencyState = "in_progress"
	IdempotencyCompleted   IdempotencyState = "completed"
	IdempotencyInterrupted IdempotencyState = "interrupted"
)

// IdempotencyRecordStatus is the response of the recorded request, once it is known.
type IdempotencyRecordStatus struct {
	// State says whether the first request is still running.
	State IdempotencyState `json:"state"`
	// Holder identifies the run of the request that works on the record now.
	// +optional
	Holder string `json:"holder,omitempty"`
	// HeartbeatAt is renewed while the request runs.
	// +optional
	HeartbeatAt *metav1.Time `json:"heartbeatAt,omitempty"`
	// Attempts counts the runs of the request: more than one when a retry resumed it.
	// +optional
	Attempts int `json:"attempts,omitempty"`
	// StatusCode is the HTTP status of the first response.
	// +optional
	StatusCode int `json:"statusCode,omitempty"`
	// ContentType is the Content-Type of the first response.
	// +optional
	ContentType string `json:"contentType,omitempty"`
	// Body is the first response's body when it is small.
	// +optional
	Body string `json:"body,omitempty"`
	// BodyRef is the object-store key of a larger body.
	// +optional
	BodyRef string `json:"bodyRef,omitempty"`
	// RequestID is the X-Request-Id of the first request; replays carry it too, so that it keeps
	// matching the request_id of a recorded error.
	// +optional
	RequestID string `json:"requestID,omitempty"`
	// CompletedAt is when the first response was recorded.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
}

// IdempotencyRecord keeps the response of a POST sent with an Idempotency-Key for 24 hours. Its
// name is derived from the organization, the route and the key, so two concurrent requests with
// one key race on the API server and exactly one of them runs.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=idem,categories=tcs
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Route",type=string,JSONPath=`.spec.route`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Code",type=integer,JSONPath=`.status.statusCode`
// +kubebuilder:printcolumn:name="Expires",type=date,JSONPath=`.spec.expiresAt`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type IdempotencyRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IdempotencyRecordSpec   `json:"spec,omitempty"`
	Status IdempotencyRecordStatus `json:"status,omitempty"`
}

// IdempotencyRecordList is a list of IdempotencyRecords.
// +kubebuilder:object:root=true
type IdempotencyRecordList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IdempotencyRecord `json:"items"`
}

func init() {
	SchemeBuilder.Register(&IdempotencyRecord{}, &IdempotencyRecordList{})
}
