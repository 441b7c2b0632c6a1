package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"tcs.dev/tcs/internal/domain/apiview"
)

// EventTest is the event type of a test delivery: receivers that act on the six event types of
// the API ignore it.
const EventTest = "test"

// DeliveryHash returns the 32 hex digits that name the delivery of event about transcriptID
// to the endpoint endpointID: the name is "evt-" and the id "evt_" followed by them. key tells
// apart events of one type that happen more than once (see EmittedEvent.Key). The same event
// and endpoint always give the same name, so a delivery is made once however often a
// reconciler is interrupted while it makes it.
func DeliveryHash(transcriptID, event, key, endpointID string) string {
	if key != "" {
		event += "/" + key
	}
	sum := sha256.Sum256([]byte(transcriptID + "/" + event + "/" + endpointID))
	return hex.EncodeToString(sum[:])[:32]
}

// DeliveryName returns the object name of the delivery whose DeliveryHash (or random suffix,
// for a test delivery) is hash.
func DeliveryName(hash string) string { return "evt-" + hash }

// DeliveryID returns the id of the delivery whose DeliveryHash (or random suffix, for a test
// delivery) is hash.
func DeliveryID(hash string) string { return "evt_" + hash }

// PayloadKey returns the object-store key of the body of delivery id of organization org.
func PayloadKey(org, id string) string {
	return "webhooks/" + org + "/" + id + ".json"
}

// TranscriptBody is the body of a delivery of a transcript's event: the transcript as the API
// shows it, plus the event and the delivery id.
type TranscriptBody struct {
	apiview.Transcript
	Event      string `json:"event"`
	DeliveryID string `json:"delivery_id"`
}

// TranscriptPayload returns the body of delivery id of event about the transcript shown.
func TranscriptPayload(shown apiview.Transcript, event, id string) ([]byte, error) {
	b, err := json.Marshal(TranscriptBody{Transcript: shown, Event: event, DeliveryID: id})
	if err != nil {
		return nil, fmt.Errorf("encoding the payload of %s: %w", id, err)
	}
	return b, nil
}

// TestPayload returns the body of the test delivery id to the endpoint endpointID of
// organization org, sent at now: it says it is a test.
func TestPayload(id, org, endpointID string, now time.Time) ([]byte, error) {
	b, err := json.Marshal(map[string]any{
		"id": id, "object": "event", "event": EventTest, "delivery_id": id, "test": true,
		"organization_id": org, "endpoint_id": endpointID,
		"created_at": now.UTC().Format(time.RFC3339),
		"message":    "A test event sent from the tcs dashboard.",
	})
	if err != nil {
		return nil, fmt.Errorf("encoding a test event: %w", err)
	}
	return b, nil
}
