package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"tcs.dev/tcs/pkg/webhook"
)

// A receiver's handler: verify over the raw body, then decode; answer 400 to anything that
// does not verify and 200 to the rest. The second half only plays the sender to call it.
func Example() {
	secret := "whsec_k7q2m9x4p1r8t5w3z6v0n2b8c4d1f7g3" // from your configuration, never the source

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 32<<20)
		body, err := webhook.VerifyRequest(r, secret, 5*time.Minute)
		if err != nil {
			log.Printf("webhook refused: %v", err)
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		var event struct {
			Event      string `json:"event"`
			DeliveryID string `json:"delivery_id"`
			ID         string `json:"id"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "invalid JSON", http.StatusBadRequest)
			return
		}
		// Deduplicate on event.DeliveryID (it is signed, the X-Svc-Delivery header is not),
		// queue the work, and answer at once: tcs waits 10 seconds at most.
		w.WriteHeader(http.StatusOK)
	})

	// Play the sender: sign a body as tcs does, send it once intact and once altered.
	body := `{"event":"transcript.completed","delivery_id":"evt_0123456789abcdefghij","id":"tr_abcdefghij0123456789"}`
	t := strconv.FormatInt(time.Now().Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t + "." + body))
	v1 := "t=" + t + ",v1=" + hex.EncodeToString(m.Sum(nil))

	for _, sent := range []string{body, strings.Replace(body, "completed", "failed", 1)} {
		r := httptest.NewRequest(http.MethodPost, "/webhooks/tcs", strings.NewReader(sent))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(webhook.HeaderSignatureV1, v1)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		fmt.Println(w.Code)
	}
	// Output:
	// 200
	// 400
}

// Verify checks the plain X-Svc-Signature header; these are the documented known-answer values.
func ExampleVerify() {
	secret := "whsec_k7q2m9x4p1r8t5w3z6v0n2b8c4d1f7g3"
	body := []byte(`{"event":"transcript.completed","delivery_id":"evt_0123456789abcdefghij","id":"tr_abcdefghij0123456789"}`)
	fmt.Println(webhook.Verify(secret, "53caee98ffd077f560a5bbbf0a844eb596d0e6dd862bc35d6b1b9ae9d8b4d9f2", body))
	fmt.Println(webhook.Verify(secret, "53caee98ffd077f560a5bbbf0a844eb596d0e6dd862bc35d6b1b9ae9d8b4d9f3", body))
	// Output:
	// <nil>
	// webhook: invalid signature
}
