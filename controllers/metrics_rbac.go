package controllers

// The metrics endpoint is served over HTTPS behind controller-runtime's authentication and
// authorization filter (filters.WithAuthenticationAndAuthorization), which asks the API server
// to review each scraper's token and its permission to get /metrics.

// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
