// Package limits holds the limits and constants of the API spec in one place.
package limits

import "time"

// Sizes.
const (
	// MaxPasteContent is the cap on a paste's content: 2 MB (2,000,000 bytes of UTF-8).
	MaxPasteContent = 2_000_000
	// MaxRemoteFile is the cap on a url source's file: 5 MB.
	MaxRemoteFile = 5_000_000
	// MaxRedirects is the most redirect hops a url source follows.
	MaxRedirects = 3
	// MaxTitle is the longest title accepted, in bytes.
	MaxTitle = 1000
)

// The synchronous wait (`wait=true`).
const (
	WaitTimeoutDefault = 60 // seconds
	WaitTimeoutMin     = 5
	WaitTimeoutMax     = 60
)

// Rate classes, per organization.
const (
	CreatePerMinute = 60
	ReadPerMinute   = 600
	SyncConcurrent  = 10
)

// IdempotencyRetention is how long an Idempotency-Key's response is replayed.
const IdempotencyRetention = 24 * time.Hour

// WebhookRetryDelays are the delays before each retry of a failed webhook delivery.
var WebhookRetryDelays = [...]time.Duration{10 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour}
