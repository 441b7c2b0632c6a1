// Package webhook verifies the webhooks that tcs sends, for receivers written in Go.
//
// Every delivery is an HTTP POST with a JSON body and these headers:
//
//	Content-Type:       application/json
//	X-Svc-Event:        transcript.completed
//	X-Svc-Delivery:     evt_…   (the delivery id; use it to deduplicate)
//	X-Svc-Signature:    lowercase hex HMAC-SHA256 of the raw body, keyed with the signing secret
//	                    (legacy: no timestamp, so replayable; not accepted by VerifyRequest)
//	X-Svc-Timestamp:    unix seconds when the delivery was signed
//	X-Svc-Signature-V1: t=<unix>,v1=<hex>[,v1=<hex>]
//
// Each v1 value is the lowercase hex HMAC-SHA256 of "<t>.<raw body>". For 24 hours after a
// secret rotation the header carries two v1 values, one per secret, so a receiver that still
// holds the old secret (or already holds the new one) verifies either way.
//
// The signing secret is the whole string "whsec_…", used as the HMAC key as it is.
// Signatures are computed over the raw body bytes: verify before decoding the JSON, never over
// a re-encoded copy.
//
// A handler verifies a delivery with [VerifyRequest]:
//
//	func handle(w http.ResponseWriter, r *http.Request) {
//		r.Body = http.MaxBytesReader(w, r.Body, 32<<20)
//		body, err := webhook.VerifyRequest(r, secret, webhook.DefaultTolerance)
//		if err != nil {
//			http.Error(w, "bad signature", http.StatusBadRequest)
//			return
//		}
//		// decode body, deduplicate on its delivery_id, answer 2xx quickly
//	}
package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	HeaderEvent       = "X-Svc-Event"        // the event type, e.g. transcript.completed
	HeaderDelivery    = "X-Svc-Delivery"     // the delivery id, evt_…
	HeaderSignature   = "X-Svc-Signature"    // hex HMAC-SHA256 of the raw body
	HeaderTimestamp   = "X-Svc-Timestamp"    // unix seconds of signing
	HeaderSignatureV1 = "X-Svc-Signature-V1" // t=<unix>,v1=<hex>[,v1=<hex>]
)

// The errors of verification; test them with errors.Is (the returned errors may wrap them).
var (
	// ErrInvalidSignature: the header is well formed but no signature matches the body and
	// secret (wrong secret, altered or re-encoded body, truncated signature), or the secret is empty.
	ErrInvalidSignature = errors.New("webhook: invalid signature")
	// ErrMalformedHeader: the signature header is missing or cannot be parsed.
	ErrMalformedHeader = errors.New("webhook: malformed signature header")
	// ErrTimestampOutOfRange: the signature matches but its timestamp is further from now than
	// the tolerance (a replay, or a badly wrong clock).
	ErrTimestampOutOfRange = errors.New("webhook: timestamp out of range")
)

// Verify checks the plain X-Svc-Signature header: it must be the lowercase hex HMAC-SHA256 of
// body keyed with secret. The comparison runs in constant time ([hmac.Equal]). It returns nil,
// [ErrInvalidSignature] or [ErrMalformedHeader] (empty header, or characters other than
// 0-9 a-f, so an upper-cased signature is refused as the contract says lowercase).
//
// The plain signature has no timestamp: a captured delivery can be replayed at any time. Use
// [VerifyTimestamped] (or [VerifyRequest], which requires it) instead; Verify is kept for
// receivers migrating from it.
func Verify(secret, header string, body []byte) error {
	if secret == "" {
		// An empty HMAC key is valid, so anyone could sign with it: refuse an unconfigured secret.
		return fmt.Errorf("%w: empty secret", ErrInvalidSignature)
	}
	sig := strings.TrimSpace(header)
	if !isLowerHex(sig) {
		return ErrMalformedHeader
	}
	// hmac.Equal answers false for a different length without comparing, which leaks only the
	// length, and the length of a SHA-256 hex digest is public.
	if !hmac.Equal([]byte(sig), []byte(sign(secret, nil, body))) {
		return ErrInvalidSignature
	}
	return nil
}

// VerifyTimestamped checks the X-Svc-Signature-V1 header "t=<unix>,v1=<hex>[,v1=<hex>]": one of
// its v1 values must be the lowercase hex HMAC-SHA256, keyed with secret, of the t digits as
// they appear in the header, a dot and body. Then the timestamp must be within tolerance of now,
// in either direction; tolerance <= 0 disables that check.
//
// Parts are separated by commas, spaces around them are ignored, and parts with another key
// (a future scheme) are ignored. A header without t, with t twice or not a plain decimal
// number, without any v1, or with a v1 that is not lowercase hex, is [ErrMalformedHeader].
// No matching v1 is [ErrInvalidSignature]; a match outside the tolerance is
// [ErrTimestampOutOfRange] (the signature is checked first, so that error means an authentic
// but stale or early delivery).
func VerifyTimestamped(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	if secret == "" {
		// An empty HMAC key is valid, so anyone could sign with it: refuse an unconfigured secret.
		return fmt.Errorf("%w: empty secret", ErrInvalidSignature)
	}
	ts, sigs, err := parseV1(header)
	if err != nil {
		return err
	}
	want := []byte(sign(secret, []byte(ts+"."), body))
	ok := false
	for _, s := range sigs {
		// Compare every value (no early exit), so the time does not say which one matched.
		if hmac.Equal([]byte(s), want) {
			ok = true
		}
	}
	if !ok {
		return ErrInvalidSignature
	}
	if tolerance <= 0 {
		return nil
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil { // parseV1 already checked it; kept for safety
		return ErrMalformedHeader
	}
	// time.Time.Sub saturates instead of overflowing, and comparing against both bounds avoids
	// negating the minimum Duration.
	d := now.Sub(time.Unix(unix, 0))
	if d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: signed at %d, now %d, tolerance %s", ErrTimestampOutOfRange, unix, now.Unix(), tolerance)
	}
	return nil
}

// An Option changes how [VerifyRequest] verifies.
type Option func(*options)

type options struct {
	untimestamped bool
	now           func() time.Time
}

// AllowUntimestamped makes [VerifyRequest] accept a request that carries only the plain
// X-Svc-Signature when its X-Svc-Signature-V1 header is missing.
//
// It is unsafe: the plain signature has no timestamp, so anyone who captured one delivery
// (a proxy log, a leaked request dump) can replay it at any time just by removing the V1
// header. It exists only for receivers migrating from code that verified the plain signature;
// a receiver using it must deduplicate on the delivery id forever. tcs always sends the V1
// header.
func AllowUntimestamped() Option {
	return func(o *options) { o.untimestamped = true }
}

// withClock makes VerifyRequest read the time from now; for tests.
func withClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// VerifyRequest reads the whole of r.Body and verifies it against the request's
// X-Svc-Signature-V1 header with [VerifyTimestamped] (tolerance, against the current time).
// It returns the body and leaves r.Body readable again from the start, so the caller can
// decode it either from the returned bytes or from r.Body.
//
// The V1 header is required: a request without it is [ErrMalformedHeader] even when it carries
// a valid plain X-Svc-Signature, because the plain signature has no timestamp and would let a
// captured delivery be replayed past the time check by stripping the V1 header. Only
// [AllowUntimestamped] (unsafe) accepts the plain signature, and only when V1 is absent. A
// tolerance <= 0 disables the time check as for VerifyTimestamped; pass [DefaultTolerance]
// unless you have a reason not to. Deduplicate on the delivery id in any case: within the
// tolerance a delivery can still be sent twice.
//
// It does not limit the size of the body: wrap r.Body with [http.MaxBytesReader] first.
func VerifyRequest(r *http.Request, secret string, tolerance time.Duration, opts ...Option) ([]byte, error) {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(r.Body)
		_ = r.Body.Close()
		// Restore what was read even on error, so the caller sees the same bytes.
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("webhook: reading body: %w", err)
		}
	}
	if v1 := r.Header.Get(HeaderSignatureV1); v1 != "" {
		if err := VerifyTimestamped(secret, v1, body, tolerance, o.now()); err != nil {
			return nil, err
		}
		return body, nil
	}
	if !o.untimestamped {
		return nil, fmt.Errorf("%w: no %s header (the timestamped signature is required)", ErrMalformedHeader, HeaderSignatureV1)
	}
	sig := r.Header.Get(HeaderSignature)
	if sig == "" {
		return nil, fmt.Errorf("%w: no %s or %s header", ErrMalformedHeader, HeaderSignatureV1, HeaderSignature)
	}
	if err := Verify(secret, sig, body); err != nil {
		return nil, err
	}
	return body, nil
}

// DefaultTolerance is the tolerance tcs recommends for the timestamp of a delivery: deliveries
// are signed when sent, so a few minutes cover clock skew and slow networks.
const DefaultTolerance = 5 * time.Minute

// Sign returns the X-Svc-Signature tcs sends with body: the lowercase hex HMAC-SHA256 of
// body keyed with secret. Receivers can use it to sign the bodies of their own tests.
func Sign(secret string, body []byte) string {
	return sign(secret, nil, body)
}

// SignTimestamped returns one v1 value of X-Svc-Signature-V1: the lowercase hex HMAC-SHA256,
// keyed with secret, of the decimal unix seconds, a dot and body.
func SignTimestamped(secret string, unix int64, body []byte) string {
	return sign(secret, []byte(strconv.FormatInt(unix, 10)+"."), body)
}

// sign returns the lowercase hex HMAC-SHA256 of prefix followed by body, keyed with secret.
func sign(secret string, prefix, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(prefix)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// parseV1 splits a V1 header into its timestamp digits and its v1 values.
func parseV1(header string) (ts string, sigs []string, err error) {
	if strings.TrimSpace(header) == "" {
		return "", nil, ErrMalformedHeader
	}
	haveT := false
	for part := range strings.SplitSeq(header, ",") {
		key, value, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found {
			return "", nil, fmt.Errorf("%w: part %q is not key=value", ErrMalformedHeader, part)
		}
		switch key {
		case "t":
			if haveT {
				return "", nil, fmt.Errorf("%w: t given twice", ErrMalformedHeader)
			}
			if !isDecimal(value) {
				return "", nil, fmt.Errorf("%w: t=%q is not unix seconds", ErrMalformedHeader, value)
			}
			haveT, ts = true, value
		case "v1":
			if !isLowerHex(value) {
				return "", nil, fmt.Errorf("%w: v1 is not lowercase hex", ErrMalformedHeader)
			}
			sigs = append(sigs, value)
		}
	}
	if !haveT {
		return "", nil, fmt.Errorf("%w: no t=", ErrMalformedHeader)
	}
	if len(sigs) == 0 {
		return "", nil, fmt.Errorf("%w: no v1=", ErrMalformedHeader)
	}
	return ts, sigs, nil
}

// isDecimal reports whether s is 1 to 18 ASCII digits (so it fits an int64).
func isDecimal(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isLowerHex reports whether s is non-empty and only of 0-9 a-f.
func isLowerHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
