package v1alpha1

// Labels and annotations that tcs sets on the objects it manages.
const (
	// LabelOrganization holds the organization id (org_…) that owns the object.
	LabelOrganization = "tcs.dev/organization"
	// LabelSourceType holds a transcript's source type.
	LabelSourceType = "tcs.dev/source-type"
	// LabelArchived ("true") marks a Transcript whose record is in the results store and that
	// waits, out of the controllers' cache, for its deletion archive-after later; it comes with
	// AnnotationArchivedAt. Whatever changes such a transcript removes both first, which brings
	// it back into the working set.
	LabelArchived = "tcs.dev/archived"
	// LabelAPIKeyID marks a Secret as an API key and holds its id (key_…).
	LabelAPIKeyID = "tcs.dev/api-key-id"
	// LabelAPIKeyHash holds the lookup hash of the key in a Secret (see internal/domain/apikey).
	LabelAPIKeyHash = "tcs.dev/api-key-hash"
	// AnnotationAPIKeyLabel holds the human label given to an API key.
	AnnotationAPIKeyLabel = "tcs.dev/label"
	// AnnotationAPIKeyExpiresAt holds an API key's expiry time (RFC 3339); absent means it never expires.
	AnnotationAPIKeyExpiresAt = "tcs.dev/expires-at"
	// AnnotationAPIKeyLastUsed holds when the API last authenticated a request with a key
	// (RFC 3339), recorded at most once a minute.
	AnnotationAPIKeyLastUsed = "tcs.dev/last-used-at"
	// AnnotationArchivedAt marks a Transcript or WebhookDelivery whose record is in the
	// results store (RFC 3339 time of the archiving): its deletion moves it out of the cluster
	// and must keep its stored content.
	AnnotationArchivedAt = "tcs.dev/archived-at"
	// AnnotationUnarchived marks a Transcript or WebhookDelivery recreated from its archived
	// record (RFC 3339 time); while its status is empty, it is restored from the record (the
	// archiver's for a Transcript, the delivery controller's, with the replay the recreation
	// was for, for a WebhookDelivery) and the other reconcilers leave it alone.
	AnnotationUnarchived = "tcs.dev/unarchived"
	// AnnotationFirstAttempt marks a WebhookDelivery whose first attempt the dispatcher made
	// before it created the resource: the attempt as JSON, which the delivery controller
	// records in the status before anything else, as if it had made it.
	AnnotationFirstAttempt = "tcs.dev/first-attempt"
	// AnnotationCreatedAt holds the creation time (RFC 3339) of a Transcript recreated from its
	// archived record, whose creationTimestamp is the time of its recreation.
	AnnotationCreatedAt = "tcs.dev/created-at"
	// SecretTypeAPIKey is the type of Secrets that hold API keys.
	SecretTypeAPIKey = "tcs.dev/api-key"
	// SecretKeyAPIKey is the data key of the API key value in its Secret.
	SecretKeyAPIKey = "key"
	// FinalizerStoredObjects keeps a Transcript until its objects in the object store (input,
	// content, changes, webhook payloads) are removed, so that a deletion never leaves them
	// behind.
	FinalizerStoredObjects = "tcs.dev/stored-objects"
)
