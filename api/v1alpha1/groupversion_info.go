// Package v1alpha1 contains the API types of the tcs.dev group: transcripts and the
// organizations that own them.
// +kubebuilder:object:generate=true
// +groupName=tcs.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of these types.
	GroupVersion = schema.GroupVersion{Group: "tcs.dev", Version: "v1alpha1"}

	// SchemeBuilder adds the types of this group version to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
