package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"tcs.dev/tcs/pkg/webhook"
)

// WebhookEvent is a verified webhook delivery: the transcript's state at the time of the
// event, with the event type and the delivery id (the key to deduplicate on).
type WebhookEvent struct {
	Event      string `json:"event"`
	DeliveryID string `json:"delivery_id"`
	Transcript
}

// ParseWebhook verifies a webhook request tcs sent with the endpoint's signing secret (see
// [webhook.VerifyRequest], which this calls: the timestamped signature is required, within
// tolerance; a request with only the plain, replayable signature is refused) and decodes it. Bound r.Body with [http.MaxBytesReader] first. An error
// wrapping [webhook.ErrInvalidSignature] or [webhook.ErrMalformedHeader] means the request
// is not from tcs: answer it 400.
func ParseWebhook(r *http.Request, secret string, tolerance time.Duration) (*WebhookEvent, error) {
	body, err := webhook.VerifyRequest(r, secret, tolerance)
	if err != nil {
		return nil, err
	}
	var ev WebhookEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("tcs: decoding the webhook body: %w", err)
	}
	return &ev, nil
}
