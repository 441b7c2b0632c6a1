package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bounds of a Glossary, as its validation markers state them; the deterministic pass
// (internal/text/correction) enforces the same ones, counting bytes where these count
// characters, and internal/domain/glossary checks every write against the engine.
const (
	// MaxGlossaryEntries bounds the entries of one glossary.
	MaxGlossaryEntries = 1000
	// MaxGlossaryTermLength bounds a term and each of its forms.
	MaxGlossaryTermLength = 100
	// MaxGlossaryForms bounds the forms of one entry.
	MaxGlossaryForms = 20
	// MaxGlossaryCategoryLength bounds a category name.
	MaxGlossaryCategoryLength = 32
	// MaxGlossaryActorLength bounds who changed an entry.
	MaxGlossaryActorLength = 320
	// MaxGlossaryBytes bounds the serialized entries of one glossary (JSON, as etcd stores
	// them): a third of etcd's 1.5 MiB object limit. The markers bound each field, but 1,000
	// entries of 20 forms of 100 bytes would be 2 MB.
	MaxGlossaryBytes = 512 << 10
)

// GlossarySpec is an organization's own words: the spelling the deterministic pass writes
// for each, and the wrong forms speech recognizers make of it.
type GlossarySpec struct {
	// Organization is the id of the organization the glossary belongs to.
	// +kubebuilder:validation:Pattern=`^org_[a-z0-9]+$`
	Organization string `json:"organization"`
	// Entries are the glossary's words, in the order they were added.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=1000
	Entries []GlossaryEntry `json:"entries,omitempty"`
}

// GlossaryEntry is one word or name of a glossary.
type GlossaryEntry struct {
	// ID identifies the entry (gle_…).
	// +kubebuilder:validation:Pattern=`^gle_[a-z0-9]+$`
	// +kubebuilder:validation:MaxLength=40
	ID string `json:"id"`
	// Term is the right spelling, written as it is by every change of the entry.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=100
	Term string `json:"term"`
	// Forms are wrong forms seen for Term, matched as whole words ignoring case.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=100
	Forms []string `json:"forms,omitempty"`
	// SoundsLike also suggests words that sound like the words of Term.
	// +optional
	SoundsLike bool `json:"soundsLike,omitempty"`
	// Auto applies the changes of the listed forms automatically; without it they are
	// suggested.
	// +optional
	Auto bool `json:"auto,omitempty"`
	// Category is the category of the entry's changes; empty means "glossary".
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]{0,31}$`
	Category string `json:"category,omitempty"`
	// UpdatedBy is who last changed the entry: a member's email address, an API key id or a
	// tool.
	// +optional
	// +kubebuilder:validation:MaxLength=320
	UpdatedBy string `json:"updatedBy,omitempty"`
	// UpdatedAt is when the entry was last changed.
	// +optional
	UpdatedAt *metav1.Time `json:"updatedAt,omitempty"`
}

// GlossaryStatus is what kubectl shows of a Glossary.
type GlossaryStatus struct {
	// Entries is the number of entries, kept by the service on every write.
	// +optional
	Entries int `json:"entries,omitempty"`
}

// Glossary is the custom vocabulary of one organization, applied by the deterministic pass of
// its transcripts; there is one per organization, named after its id (org_x → org-x).
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=gl,categories=tcs
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Entries",type=integer,JSONPath=`.status.entries`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Glossary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GlossarySpec   `json:"spec,omitempty"`
	Status GlossaryStatus `json:"status,omitempty"`
}

// GlossaryList is a list of Glossaries.
// +kubebuilder:object:root=true
type GlossaryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Glossary `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Glossary{}, &GlossaryList{})
}
