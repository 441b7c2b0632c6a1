package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	pub "tcs.dev/tcs/pkg/webhook"
)

// The known answer of docs/webhooks.md and pkg/webhook's tests, computed outside Go with
// openssl dgst -sha256 -hmac and Python's hmac module.
const (
	katSecret     = "whsec_k7q2m9x4p1r8t5w3z6v0n2b8c4d1f7g3"
	katPrevious   = "whsec_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"
	katBody       = `{"event":"transcript.completed","delivery_id":"evt_0123456789abcdefghij","id":"tr_abcdefghij0123456789"}`
	katUnix       = 1767225600 // 2026-01-01T00:00:00Z
	katPlain      = "53caee98ffd077f560a5bbbf0a844eb596d0e6dd862bc35d6b1b9ae9d8b4d9f2"
	katV1         = "ac94c4d1b23436229ea07a67aee961178050639c35884f8ba1944493474c64d7"
	katV1Previous = "ffca0af47ffe5875f4eb68260497433a2aa76f646a77a6d766a95892eebb6187"
)

func TestKnownAnswer(t *testing.T) {
	m := hmac.New(sha256.New, []byte(katSecret))
	m.Write([]byte(katBody))
	if got := hex.EncodeToString(m.Sum(nil)); got != katPlain {
		t.Fatalf("crypto/hmac = %s, the stated answer is %s", got, katPlain)
	}
	h := Headers(tcsv1.EventTranscriptCompleted, "evt_0123456789abcdefghij", katSecret, katPrevious, []byte(katBody), time.Unix(katUnix, 0).Add(999*time.Millisecond))
	want := http.Header{
		"Content-Type":       {"application/json"},
		"X-Svc-Event":        {"transcript.completed"},
		"X-Svc-Delivery":     {"evt_0123456789abcdefghij"},
		"X-Svc-Signature":    {katPlain},
		"X-Svc-Timestamp":    {"1767225600"},
		"X-Svc-Signature-V1": {"t=1767225600,v1=" + katV1 + ",v1=" + katV1Previous},
	}
	if len(h) != len(want) {
		t.Fatalf("Headers has %d headers, want %d: %v", len(h), len(want), h)
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v[0] {
			t.Errorf("%s = %q, want %q", k, got, v[0])
		}
	}
	if got := Headers(tcsv1.EventTranscriptCompleted, "evt_x", katSecret, "", []byte(katBody), time.Unix(katUnix, 0)).Get(pub.HeaderSignatureV1); got != "t=1767225600,v1="+katV1 {
		t.Errorf("V1 without a previous secret = %q", got)
	}
	if got := Headers(tcsv1.EventTranscriptCompleted, "evt_x", katSecret, katSecret, []byte(katBody), time.Unix(katUnix, 0)).Get(pub.HeaderSignatureV1); got != "t=1767225600,v1="+katV1 {
		t.Errorf("V1 with previous == current = %q", got)
	}
}

func TestNewSecret(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := NewSecret()
		rest, ok := strings.CutPrefix(s, "whsec_")
		if !ok || len(rest) != 32 {
			t.Fatalf("NewSecret = %q, want whsec_ and 32 characters", s)
		}
		for _, c := range rest {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
				t.Fatalf("NewSecret = %q has %q", s, c)
			}
		}
		if seen[s] {
			t.Fatalf("NewSecret made %q twice", s)
		}
		seen[s] = true
	}
	// A fresh secret works end to end.
	s := NewSecret()
	body := []byte(`{}`)
	if err := pub.Verify(s, pub.Sign(s, body), body); err != nil {
		t.Fatalf("Verify with a new secret: %v", err)
	}
}

// reserialize decodes and re-encodes JSON with indentation: the same data, other bytes.
func reserialize(t *testing.T, body []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(out, body) {
		t.Fatal("re-serialized body is identical")
	}
	return out
}

// TestRoundTrip signs with Headers and verifies with every function of pkg/webhook.
func TestRoundTrip(t *testing.T) {
	body := []byte(`{"event":"ai_pass.completed","delivery_id":"evt_abc","id":"tr_abc","object":"transcript","content":"In the beginning — “quoted” \u00e9\n"}`)
	const tol = 5 * time.Minute
	sent := time.Unix(katUnix, 0)
	current, previous := NewSecret(), NewSecret()

	flipped := bytes.Clone(body)
	flipped[10] ^= 0x01

	// mangle returns h with one header replaced.
	mangle := func(h http.Header, key, value string) http.Header {
		h = h.Clone()
		h.Set(key, value)
		return h
	}
	plain := func(h http.Header) string { return h.Get(pub.HeaderSignature) }
	v1 := func(h http.Header) string { return h.Get(pub.HeaderSignatureV1) }

	rotating := Headers(tcsv1.EventAIPassCompleted, "evt_abc", current, previous, body, sent)
	single := Headers(tcsv1.EventAIPassCompleted, "evt_abc", current, "", body, sent)

	for _, tc := range []struct {
		name    string
		headers http.Header
		secret  string
		body    []byte
		now     time.Time // for VerifyTimestamped
		// wantPlain is Verify's answer, wantV1 VerifyTimestamped's.
		wantPlain, wantV1 error
	}{
		{"current secret", single, current, body, sent, nil, nil},
		{"rotation, current secret", rotating, current, body, sent, nil, nil},
		{"rotation, previous secret", rotating, previous, body, sent, pub.ErrInvalidSignature, nil},
		{"previous secret after the overlap", single, previous, body, sent, pub.ErrInvalidSignature, pub.ErrInvalidSignature},
		{"wrong secret", rotating, NewSecret(), body, sent, pub.ErrInvalidSignature, pub.ErrInvalidSignature},
		{"body changed by one byte", rotating, current, flipped, sent, pub.ErrInvalidSignature, pub.ErrInvalidSignature},
		{"body re-serialized", rotating, current, reserialize(t, body), sent, pub.ErrInvalidSignature, pub.ErrInvalidSignature},
		{"truncated signatures", mangle(mangle(single, pub.HeaderSignature, plain(single)[:40]), pub.HeaderSignatureV1, v1(single)[:len(v1(single))-1]), current, body, sent, pub.ErrInvalidSignature, pub.ErrInvalidSignature},
		{"upper-cased signatures", mangle(mangle(single, pub.HeaderSignature, strings.ToUpper(plain(single))), pub.HeaderSignatureV1, "t="+strconv.Itoa(katUnix)+",v1="+strings.ToUpper(pub.SignTimestamped(current, katUnix, body))), current, body, sent, pub.ErrMalformedHeader, pub.ErrMalformedHeader},
		{"non-hex signatures", mangle(mangle(single, pub.HeaderSignature, "x"+plain(single)[1:]), pub.HeaderSignatureV1, strings.Replace(v1(single), "v1=", "v1=x", 1)), current, body, sent, pub.ErrMalformedHeader, pub.ErrMalformedHeader},
		{"V1 without t=", mangle(single, pub.HeaderSignatureV1, strings.SplitN(v1(single), ",", 2)[1]), current, body, sent, nil, pub.ErrMalformedHeader},
		{"V1 without v1=", mangle(single, pub.HeaderSignatureV1, "t="+strconv.Itoa(katUnix)), current, body, sent, nil, pub.ErrMalformedHeader},
		{"V1 garbage", mangle(single, pub.HeaderSignatureV1, "%%%garbage%%%"), current, body, sent, nil, pub.ErrMalformedHeader},
		{"V1 timestamp moved", mangle(rotating, pub.HeaderSignatureV1, strings.Replace(v1(rotating), "t="+strconv.Itoa(katUnix), "t="+strconv.Itoa(katUnix+3600), 1)), current, body, sent.Add(time.Hour), nil, pub.ErrInvalidSignature},
		{"older than the tolerance", rotating, current, body, sent.Add(tol + time.Second), nil, pub.ErrTimestampOutOfRange},
		{"newer than the tolerance", rotating, current, body, sent.Add(-tol - time.Second), nil, pub.ErrTimestampOutOfRange},
		{"within the tolerance", rotating, previous, body, sent.Add(tol - time.Second), pub.ErrInvalidSignature, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := pub.Verify(tc.secret, tc.headers.Get(pub.HeaderSignature), tc.body)
			if !errors.Is(err, tc.wantPlain) || (tc.wantPlain == nil) != (err == nil) {
				t.Errorf("Verify = %v, want %v", err, tc.wantPlain)
			}
			err = pub.VerifyTimestamped(tc.secret, tc.headers.Get(pub.HeaderSignatureV1), tc.body, tol, tc.now)
			if !errors.Is(err, tc.wantV1) || (tc.wantV1 == nil) != (err == nil) {
				t.Errorf("VerifyTimestamped = %v, want %v", err, tc.wantV1)
			}
		})
	}
}

// TestRoundTripRequest sends real HTTP requests with Headers to a handler using VerifyRequest.
func TestRoundTripRequest(t *testing.T) {
	current, previous := NewSecret(), NewSecret()
	body := []byte(`{"event":"transcript.created","delivery_id":"evt_1","id":"tr_1"}`)
	now := time.Now()

	type result struct {
		code int
		body string
	}
	serve := func(secret string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, err := pub.VerifyRequest(r, secret, 5*time.Minute)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if r.Header.Get(pub.HeaderEvent) != tcsv1.EventTranscriptCreated || r.Header.Get(pub.HeaderDelivery) != "evt_1" || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "headers lost", http.StatusInternalServerError)
				return
			}
			w.Write(got)
		}))
	}
	for _, tc := range []struct {
		name     string
		receiver string // the receiver's secret
		previous string
		drop     string // a header not sent
		sentAt   time.Time
		body     []byte // sent instead of the signed body
		want     int
	}{
		{name: "current", receiver: current, sentAt: now, want: 200},
		{name: "rotation, receiver has the new secret", receiver: current, previous: previous, sentAt: now, want: 200},
		{name: "rotation, receiver has the old secret", receiver: previous, previous: previous, sentAt: now, want: 200},
		{name: "rotation, old secret, plain only", receiver: previous, previous: previous, drop: pub.HeaderSignatureV1, sentAt: now, want: 400},
		{name: "plain only is refused", receiver: current, drop: pub.HeaderSignatureV1, sentAt: now, want: 400},
		{name: "replayed an hour later, timestamped header stripped", receiver: current, drop: pub.HeaderSignatureV1, sentAt: now.Add(-time.Hour), want: 400},
		{name: "no signature at all", receiver: current, drop: pub.HeaderSignatureV1 + "," + pub.HeaderSignature, sentAt: now, want: 400},
		{name: "wrong secret", receiver: NewSecret(), previous: previous, sentAt: now, want: 400},
		{name: "replayed an hour later", receiver: current, sentAt: now.Add(-time.Hour), want: 400},
		{name: "body changed", receiver: current, sentAt: now, body: bytes.Replace(body, []byte("tr_1"), []byte("tr_2"), 1), want: 400},
		{name: "body re-serialized", receiver: current, sentAt: now, body: reserialize(t, body), want: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(tc.receiver)
			defer srv.Close()
			sent := body
			if tc.body != nil {
				sent = tc.body
			}
			req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(sent))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = Headers(tcsv1.EventTranscriptCreated, "evt_1", current, tc.previous, body, tc.sentAt)
			for k := range strings.SplitSeq(tc.drop, ",") {
				req.Header.Del(k)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			got := result{resp.StatusCode, buf.String()}
			if got.code != tc.want {
				t.Fatalf("status %d (%s), want %d", got.code, strings.TrimSpace(got.body), tc.want)
			}
			if tc.want == 200 && got.body != string(body) {
				t.Fatalf("handler saw body %q, want %q", got.body, body)
			}
		})
	}
}
