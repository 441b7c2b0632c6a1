package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OrganizationSpec defines an organization: who may use the dashboard and which limits apply.
type OrganizationSpec struct {
	// ID is the organization's API id.
	// +kubebuilder:validation:Pattern=`^org_[a-z0-9]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="id is immutable"
	ID string `json:"id"`

	// DisplayName is the organization's name as people read it.
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// Members are the dashboard logins of the organization.
	// +optional
	// +listType=map
	// +listMapKey=email
	Members []Member `json:"members,omitempty"`

	// Limits overrides the default rate limits for this organization.
	// +optional
	Limits *LimitOverrides `json:"limits,omitempty"`

	// Settings are the organization's own preferences, which its owners and admins edit in the
	// dashboard.
	// +optional
	Settings *OrganizationSettings `json:"settings,omitempty"`
}

// OrganizationSettings are an organization's preferences: the time zone its dates are shown and
// its days counted in, and the options that new transcripts made in the dashboard start from.
type OrganizationSettings struct {
	// TimeZone is the IANA name of the organization's time zone (Europe/Berlin); empty means UTC.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_+/-]*$`
	// +optional
	TimeZone string `json:"timeZone,omitempty"`

	// Defaults are the options a transcript made in the dashboard starts with.
	// +optional
	Defaults TranscriptDefaults `json:"defaults,omitempty"`
}

// TranscriptDefaults are the default processing options of an organization's new transcripts.
type TranscriptDefaults struct {
	// NormalizeReferences rewrites spoken Bible references ("chapter thirteen verse four") as "13:4".
	// +optional
	NormalizeReferences bool `json:"normalizeReferences,omitempty"`

	// AIPass configures the AI validation pass.
	// +optional
	AIPass AIPassOptions `json:"aiPass,omitempty"`

	// Categories limits the corrections to these categories; empty means every category.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=40
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9][a-z0-9_-]*$`
	Categories []string `json:"categories,omitempty"`
}

// Member is a person who may sign in to the dashboard for an organization.
type Member struct {
	// Email identifies the member.
	Email string `json:"email"`
	// Role is the member's role: owner (everything, members included), admin (API keys and
	// webhook endpoints) or member (reads everything, reveals keys and endpoint secrets).
	// +kubebuilder:validation:Enum=owner;admin;member
	// +kubebuilder:default=member
	// +optional
	Role string `json:"role,omitempty"`
}

// LimitOverrides replaces the default per-organization limits; an unset field keeps the default.
type LimitOverrides struct {
	// CreatePerMinute is the create class limit.
	// +kubebuilder:validation:Minimum=1
	// +optional
	CreatePerMinute *int32 `json:"createPerMinute,omitempty"`
	// ReadPerMinute is the read class limit.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ReadPerMinute *int32 `json:"readPerMinute,omitempty"`
	// SyncConcurrent is the number of concurrent synchronous creates.
	// +kubebuilder:validation:Minimum=1
	// +optional
	SyncConcurrent *int32 `json:"syncConcurrent,omitempty"`
}

// OrganizationStatus is the observed state of an Organization.
type OrganizationStatus struct {
	// ObservedGeneration is the generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions describe the organization's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Organization is a customer of the service; it owns API keys, transcripts and webhook endpoints.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=org;orgs,categories=tcs
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Organization struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   OrganizationSpec   `json:"spec,omitempty"`
	Status OrganizationStatus `json:"status,omitempty"`
}

// OrganizationList is a list of Organizations.
// +kubebuilder:object:root=true
type OrganizationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Organization `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Organization{}, &OrganizationList{})
}
