package apiserver

// The API writes the organizations' glossaries through internal/domain/glossary and reads
// them, compiled, for the inline paste path.
// +kubebuilder:rbac:groups=tcs.dev,resources=glossaries,verbs=get;list;watch;create;update;patch;delete,namespace=tcs-system
