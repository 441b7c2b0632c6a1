// Package scheme builds the runtime scheme of every Kubernetes type tcs reads or writes.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// New returns a scheme with the built-in Kubernetes types and the tcs.dev types.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(tcsv1.AddToScheme(s))
	return s
}
