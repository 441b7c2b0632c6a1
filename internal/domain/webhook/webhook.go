// Package webhook is the webhook domain of tcs: the event types an endpoint can subscribe to
// (events.go), which endpoint gets which event (subscription.go), the names and payloads of
// deliveries (delivery.go), when a failed delivery is tried again (schedule.go), and the
// secrets, signatures and headers of a delivery (this file). Receivers verify the signatures
// with tcs.dev/tcs/pkg/webhook; docs/webhooks.md is their guide. The controllers and package
// endpoints apply these rules; none of them states one again.
package webhook

import (
	"net/http"
	"strconv"
	"time"

	"tcs.dev/tcs/internal/domain/ids"
	pub "tcs.dev/tcs/pkg/webhook"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// SecretLength is the number of random characters after SecretPrefix (32 of [a-z0-9], about
// 165 bits).
const SecretLength = 32

// NewSecret returns a new signing secret: "whsec_" and 32 random characters of [a-z0-9] from
// crypto/rand. The whole string is the HMAC key.
func NewSecret() string {
	return SecretPrefix + ids.Random(SecretLength)
}

// Headers returns every header of a delivery of body: Content-Type, X-Svc-Event,
// X-Svc-Delivery, X-Svc-Signature (with current), X-Svc-Timestamp (now in unix seconds) and
// X-Svc-Signature-V1 ("t=<unix>,v1=<current>", then ",v1=<previous>" when previous is neither
// empty nor current: the 24 hours after a rotation). body must be the exact bytes sent, and
// current must not be empty.
func Headers(event, deliveryID, current, previous string, body []byte, now time.Time) http.Header {
	unix := now.Unix()
	t := strconv.FormatInt(unix, 10)
	v1 := "t=" + t + ",v1=" + pub.SignTimestamped(current, unix, body)
	if previous != "" && previous != current {
		v1 += ",v1=" + pub.SignTimestamped(previous, unix, body)
	}
	h := make(http.Header, 6)
	h.Set("Content-Type", "application/json")
	h.Set(pub.HeaderEvent, event)
	h.Set(pub.HeaderDelivery, deliveryID)
	h.Set(pub.HeaderSignature, pub.Sign(current, body))
	h.Set(pub.HeaderTimestamp, t)
	h.Set(pub.HeaderSignatureV1, v1)
	return h
}
