package v1alpha1

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Event types of the API.
const (
	EventTranscriptCreated   = "transcript.created"
	EventTranscriptCompleted = "transcript.completed"
	EventTranscriptFailed    = "transcript.failed"
	EventAIPassStarted       = "ai_pass.started"
	EventAIPassCompleted     = "ai_pass.completed"
	EventAIPassFailed        = "ai_pass.failed"
	// EventTranscriptReviewed is sent when a batch of review decisions changed a transcript's
	// content; endpoints receive it only when they name it.
	EventTranscriptReviewed = "transcript.reviewed"
)

// Keys of the signing-secret Secret of a WebhookEndpoint.
const (
	// SecretKeyWebhookSecret holds the current signing secret (whsec_…).
	SecretKeyWebhookSecret = "secret"
	// SecretKeyWebhookPrevious holds the secret before the last rotation.
	SecretKeyWebhookPrevious = "previous"
	// AnnotationRotatedAt holds when the secret was last rotated (RFC 3339); for 24 hours after,
	// deliveries carry a signature with the previous secret too.
	AnnotationRotatedAt = "tcs.dev/rotated-at"
)

// WebhookEndpointSpec is where and what an organization wants to be told.
type WebhookEndpointSpec struct {
	// ID is the endpoint's id (we_…).
	// +kubebuilder:validation:Pattern=`^we_[a-z0-9]+$`
	ID string `json:"id"`
	// Organization is the id of the organization the endpoint belongs to.
	// +kubebuilder:validation:Pattern=`^org_[a-z0-9]+$`
	Organization string `json:"organization"`
	// URL receives the deliveries; https is required except for the outbound allow-list.
	// +kubebuilder:validation:Pattern=`^https?://`
	URL string `json:"url"`
	// Events are the event types the endpoint subscribes to.
	// +kubebuilder:validation:MinItems=1
	// +listType=set
	Events []string `json:"events"`
	// Paused stops deliveries; the events are recorded as skipped so they can be replayed.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// SecretName names the Secret (in the same namespace) that holds the signing secret.
	SecretName string `json:"secretName"`
}

// WebhookEndpointStatus is the observed state of a WebhookEndpoint.
type WebhookEndpointStatus struct {
	// ObservedGeneration is the generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions describe the endpoint's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Subscriptions record since when the endpoint subscribes to each of its event types: it
	// receives only the events emitted from then on, never those from before.
	// +optional
	// +listType=map
	// +listMapKey=event
	Subscriptions []EventSubscription `json:"subscriptions,omitempty"`
}

// EventSubscription is one event type an endpoint subscribes to.
type EventSubscription struct {
	// Event is the event type.
	Event string `json:"event"`
	// Since is when the endpoint subscribed to it: its creation for the types it was created
	// with, else when the controller first saw the type in its spec.
	Since metav1.Time `json:"since"`
}

// SubscribedSince returns since when ep subscribes to event, and false when its status does
// not record it (yet).
func (ep *WebhookEndpoint) SubscribedSince(event string) (time.Time, bool) {
	for _, s := range ep.Status.Subscriptions {
		if s.Event == event {
			return s.Since.Time, true
		}
	}
	return time.Time{}, false
}

// WebhookEndpoint is an HTTPS URL of an organization that receives signed events.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=whe,categories=tcs
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`
// +kubebuilder:printcolumn:name="Paused",type=boolean,JSONPath=`.spec.paused`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type WebhookEndpoint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebhookEndpointSpec   `json:"spec,omitempty"`
	Status WebhookEndpointStatus `json:"status,omitempty"`
}

// WebhookEndpointList is a list of WebhookEndpoints.
// +kubebuilder:object:root=true
type WebhookEndpointList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebhookEndpoint `json:"items"`
}

// DeliveryState is the state of a webhook delivery.
// +kubebuilder:validation:Enum=pending;succeeded;failed;skipped;canceled
type DeliveryState string

// The states of a delivery.
const (
	DeliveryPending   DeliveryState = "pending"
	DeliverySucceeded DeliveryState = "succeeded"
	DeliveryFailed    DeliveryState = "failed"
	DeliverySkipped   DeliveryState = "skipped"
	DeliveryCanceled  DeliveryState = "canceled"
)

// WebhookDeliverySpec is one event for one endpoint.
type WebhookDeliverySpec struct {
	// ID is the delivery id (evt_…), the X-Svc-Delivery header and the body's delivery_id.
	ID string `json:"id"`
	// Organization is the id of the organization of the event.
	Organization string `json:"organization"`
	// Endpoint is the name of the WebhookEndpoint.
	Endpoint string `json:"endpoint"`
	// Event is the event type.
	Event string `json:"event"`
	// TranscriptID is the id of the transcript the event is about.
	TranscriptID string `json:"transcriptID"`
	// Sequence orders the events of one transcript.
	Sequence int `json:"sequence"`
	// PayloadRef is the object-store key of the body.
	PayloadRef string `json:"payloadRef"`
}

// DeliveryAttempt is one try to deliver.
type DeliveryAttempt struct {
	// Time is when the attempt started.
	Time metav1.Time `json:"time"`
	// StatusCode is the receiver's HTTP status, 0 when there was none.
	// +optional
	StatusCode int `json:"statusCode,omitempty"`
	// Error says why the attempt failed.
	// +optional
	Error string `json:"error,omitempty"`
	// DurationMillis is how long the attempt took.
	DurationMillis int64 `json:"durationMillis"`
	// Response is what is kept of the receiver's answer; none when there was no answer.
	// +optional
	Response *DeliveryResponse `json:"response,omitempty"`
}

// Bounds of the DeliveryResponse of an attempt, so that a delivery's status stays small
// however many attempts and replays it has. The kubebuilder markers of DeliveryResponse and
// ResponseHeader repeat them.
const (
	// MaxResponseHeaders bounds the headers kept of an answer.
	MaxResponseHeaders = 20
	// MaxResponseHeaderNameBytes bounds the name of a header kept.
	MaxResponseHeaderNameBytes = 64
	// MaxResponseHeaderValueBytes bounds the value of a header kept.
	MaxResponseHeaderValueBytes = 256
	// MaxResponseBodyBytes bounds the start of an answer's body that is kept.
	MaxResponseBodyBytes = 2048
)

// DeliveryResponse is what is kept of a receiver's answer to an attempt: some of its headers
// and the start of its body, as text.
type DeliveryResponse struct {
	// Headers are the answer's headers in name order, at most MaxResponseHeaders of them,
	// without those that may carry credentials (cookies, authorization, tokens, keys).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	Headers []ResponseHeader `json:"headers,omitempty"`
	// HeadersTruncated is true when headers were left out or cut for the bounds.
	// +optional
	HeadersTruncated bool `json:"headersTruncated,omitempty"`
	// Body is the start of the answer's body, at most MaxResponseBodyBytes, with each run of
	// bytes that are not UTF-8 replaced by U+FFFD.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Body string `json:"body,omitempty"`
	// BodyTruncated is true when the body was longer than Body.
	// +optional
	BodyTruncated bool `json:"bodyTruncated,omitempty"`
}

// ResponseHeader is one header of a receiver's answer; a header with several values is kept
// as several.
type ResponseHeader struct {
	// Name is the header's name, in canonical form.
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
	// Value is the header's value, cut at MaxResponseHeaderValueBytes.
	// +kubebuilder:validation:MaxLength=256
	Value string `json:"value"`
}

// WebhookDeliveryStatus is the progress of a delivery.
type WebhookDeliveryStatus struct {
	// State is the delivery's state.
	// +optional
	State DeliveryState `json:"state,omitempty"`
	// Attempts are the tries so far, oldest first.
	// +optional
	// +listType=atomic
	Attempts []DeliveryAttempt `json:"attempts,omitempty"`
	// NextAttemptAt is when the next try is due.
	// +optional
	NextAttemptAt *metav1.Time `json:"nextAttemptAt,omitempty"`
	// CompletedAt is when the delivery reached a final state.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// Replays counts manual replays.
	// +optional
	Replays int `json:"replays,omitempty"`
	// ReplayedAt is when the last manual replay was asked for; the retry schedule counts the
	// attempts made since then.
	// +optional
	ReplayedAt *metav1.Time `json:"replayedAt,omitempty"`
}

// WebhookDelivery is one event for one endpoint, sent, signed and retried by its controller.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=whd,categories=tcs
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Event",type=string,JSONPath=`.spec.event`
// +kubebuilder:printcolumn:name="Transcript",type=string,JSONPath=`.spec.transcriptID`
// +kubebuilder:printcolumn:name="Endpoint",type=string,JSONPath=`.spec.endpoint`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Replays",type=integer,JSONPath=`.status.replays`,priority=1
// +kubebuilder:printcolumn:name="Last Code",type=integer,JSONPath=`.status.attempts[-1:].statusCode`
// +kubebuilder:printcolumn:name="Last Error",type=string,JSONPath=`.status.attempts[-1:].error`,priority=1
// +kubebuilder:printcolumn:name="Next",type=date,JSONPath=`.status.nextAttemptAt`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type WebhookDelivery struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebhookDeliverySpec   `json:"spec,omitempty"`
	Status WebhookDeliveryStatus `json:"status,omitempty"`
}

// WebhookDeliveryList is a list of WebhookDeliveries.
// +kubebuilder:object:root=true
type WebhookDeliveryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebhookDelivery `json:"items"`
}

func init() {
	SchemeBuilder.Register(&WebhookEndpoint{}, &WebhookEndpointList{}, &WebhookDelivery{}, &WebhookDeliveryList{})
}

// Emit records event as emitted for t at now, once; it returns false when it was already
// recorded.
func (t *Transcript) Emit(event string, now time.Time) bool {
	return t.EmitKeyed(event, "", now)
}

// EmitKeyed records event with key as emitted for t at now, once per event and key; it
// returns false when it was already recorded.
func (t *Transcript) EmitKeyed(event, key string, now time.Time) bool {
	for _, e := range t.Status.EmittedEvents {
		if e.Type == event && e.Key == key {
			return false
		}
	}
	st := &t.Status
	// DeepCopy of a nil pointer is nil.
	state := &EventState{Phase: st.Phase, AIPassStatus: st.AIPassStatus, ContentRef: st.ContentRef, Jobs: len(st.Jobs),
		ChangesSummary: st.ChangesSummary.DeepCopy(), AIPass: st.AIPass.DeepCopy(), Error: st.Error.DeepCopy(), CompletedAt: st.CompletedAt.DeepCopy(),
		Review: st.Review.DeepCopy()}
	e := EmittedEvent{Type: event, Key: key, Time: metav1.NewTime(now), State: state}
	if n := len(t.Status.EmittedEvents); n > 0 && equality.Semantic.DeepEqual(t.EventState(n-1), state) {
		e.State, e.SameState = nil, true
	}
	t.Status.EmittedEvents = append(t.Status.EmittedEvents, e)
	return true
}

// EventState returns the state event seq of t announces: its own snapshot, or that of the
// nearest earlier event holding one when it has SameState; nil once the snapshot is dropped.
func (t *Transcript) EventState(seq int) *EventState {
	events := t.Status.EmittedEvents
	for ; seq >= 0; seq-- {
		if !events[seq].SameState {
			return events[seq].State
		}
	}
	return nil
}

// MarkDispatched marks event seq of t dispatched and drops its snapshot, which the events
// after it that share it keep.
func (t *Transcript) MarkDispatched(seq int) {
	events := t.Status.EmittedEvents
	if next := seq + 1; next < len(events) && events[next].SameState {
		events[next].State, events[next].SameState = t.EventState(seq), false
	}
	events[seq].Dispatched, events[seq].State, events[seq].SameState = true, nil, false
}

// AsOf returns a copy of t with the status fields of state in place of its own: the
// transcript as an event showed it. A nil state returns t itself.
func (t *Transcript) AsOf(state *EventState) *Transcript {
	if state == nil {
		return t
	}
	c := t.DeepCopy()
	st := &c.Status
	st.Phase, st.AIPassStatus, st.ContentRef = state.Phase, state.AIPassStatus, state.ContentRef
	st.ChangesSummary, st.AIPass, st.Error, st.CompletedAt = state.ChangesSummary, state.AIPass, state.Error, state.CompletedAt
	st.Review = state.Review
	if state.Jobs < len(st.Jobs) {
		st.Jobs = st.Jobs[:state.Jobs]
	}
	return c
}

// Replay asks for a manual replay of d at at: its controller makes a new attempt at once, and
// the retry schedule counts the attempts from then on.
func (d *WebhookDelivery) Replay(at time.Time) {
	t := metav1.NewTime(at)
	d.Status.State = DeliveryPending
	d.Status.NextAttemptAt = &t
	d.Status.Replays++
	d.Status.ReplayedAt = &t
}

// Unarchived returns when d was brought back from its archived record to be replayed, and
// false when it was not (the AnnotationUnarchived of a delivery holds the replay's time).
func (d *WebhookDelivery) Unarchived() (time.Time, bool) {
	v, ok := d.Annotations[AnnotationUnarchived]
	if !ok {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return d.CreationTimestamp.Time, true
	}
	return at, true
}

// NewDeliveryResponse returns what is kept of an answer with headers h whose body starts with
// head; more reports that the body went on after head. The bounds are those of
// DeliveryResponse: head may be longer than MaxResponseBodyBytes.
func NewDeliveryResponse(h http.Header, head []byte, more bool) *DeliveryResponse {
	r := &DeliveryResponse{}
	var cut bool
	r.Body, cut = clipText(string(head), MaxResponseBodyBytes)
	r.BodyTruncated = cut || more
	for _, name := range slices.Sorted(maps.Keys(h)) {
		if credentialHeader(name) {
			continue
		}
		for _, v := range h[name] {
			if len(r.Headers) == MaxResponseHeaders {
				r.HeadersTruncated = true
				return r
			}
			n, cutName := clipText(name, MaxResponseHeaderNameBytes)
			val, cutValue := clipText(v, MaxResponseHeaderValueBytes)
			r.Headers = append(r.Headers, ResponseHeader{Name: n, Value: val})
			r.HeadersTruncated = r.HeadersTruncated || cutName || cutValue
		}
	}
	return r
}

// credentialHeader reports whether the header named name may carry a credential (a cookie,
// an authorization, a token, a key), which a delivery's status never keeps.
func credentialHeader(name string) bool {
	name = strings.ToLower(name)
	for _, w := range [...]string{"cookie", "auth", "token", "secret", "key", "session", "password", "signature", "credential"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// clipText returns s with each run of bytes that are not UTF-8 replaced by U+FFFD, cut to at
// most limit bytes at a character's start, and whether it was cut.
func clipText(s string, limit int) (string, bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= limit {
		return s, false
	}
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	return s[:limit], true
}
