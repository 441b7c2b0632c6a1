package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The known answer, also quoted in docs/webhooks.md. The hex values were computed outside Go
// (openssl dgst -sha256 -hmac and Python's hmac) and are recomputed below with crypto/hmac.
const (
	katSecret   = "whsec_k7q2m9x4p1r8t5w3z6v0n2b8c4d1f7g3"
	katPrevious = "whsec_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"
	katBody     = `{"event":"transcript.completed","delivery_id":"evt_0123456789abcdefghij","id":"tr_abcdefghij0123456789"}`
	katUnix     = 1767225600 // 2026-01-01T00:00:00Z
	// HMAC-SHA256(katSecret, katBody)
	katPlain = "53caee98ffd077f560a5bbbf0a844eb596d0e6dd862bc35d6b1b9ae9d8b4d9f2"
	// HMAC-SHA256(katSecret, "1767225600." + katBody)
	katV1 = "ac94c4d1b23436229ea07a67aee961178050639c35884f8ba1944493474c64d7"
	// HMAC-SHA256(katPrevious, "1767225600." + katBody)
	katV1Previous = "ffca0af47ffe5875f4eb68260497433a2aa76f646a77a6d766a95892eebb6187"
)

// mac is the test's own HMAC, independent of the package's sign.
func mac(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

func TestKnownAnswer(t *testing.T) {
	if got := mac(katSecret, katBody); got != katPlain {
		t.Fatalf("crypto/hmac plain = %s, the stated answer is %s", got, katPlain)
	}
	if got := mac(katSecret, "1767225600."+katBody); got != katV1 {
		t.Fatalf("crypto/hmac v1 = %s, the stated answer is %s", got, katV1)
	}
	if got := mac(katPrevious, "1767225600."+katBody); got != katV1Previous {
		t.Fatalf("crypto/hmac previous v1 = %s, the stated answer is %s", got, katV1Previous)
	}
	if got := Sign(katSecret, []byte(katBody)); got != katPlain {
		t.Fatalf("Sign = %s, want %s", got, katPlain)
	}
	if got := SignTimestamped(katSecret, katUnix, []byte(katBody)); got != katV1 {
		t.Fatalf("SignTimestamped = %s, want %s", got, katV1)
	}
	if err := Verify(katSecret, katPlain, []byte(katBody)); err != nil {
		t.Fatalf("Verify(known answer) = %v", err)
	}
	now := time.Unix(katUnix, 0)
	for _, h := range []string{
		"t=1767225600,v1=" + katV1,
		"t=1767225600,v1=" + katV1 + ",v1=" + katV1Previous,
		"t=1767225600,v1=" + katV1Previous + ",v1=" + katV1,
	} {
		if err := VerifyTimestamped(katSecret, h, []byte(katBody), 5*time.Minute, now); err != nil {
			t.Errorf("VerifyTimestamped(current, %q) = %v", h, err)
		}
	}
	h := "t=1767225600,v1=" + katV1 + ",v1=" + katV1Previous
	if err := VerifyTimestamped(katPrevious, h, []byte(katBody), 5*time.Minute, now); err != nil {
		t.Errorf("VerifyTimestamped(previous) = %v", err)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"event": "transcript.created", "delivery_id": "evt_x", "n": [1, 2]}`)
	good := mac(katSecret, string(body))
	flipped := bytes.Clone(body)
	flipped[len(flipped)-2] ^= 1 // '2' → '3'
	for _, tc := range []struct {
		name   string
		secret string
		header string
		body   []byte
		want   error
	}{
		{"good", katSecret, good, body, nil},
		{"surrounding spaces", katSecret, "  " + good + " ", body, nil},
		{"wrong secret", katPrevious, good, body, ErrInvalidSignature},
		{"secret without prefix", strings.TrimPrefix(katSecret, "whsec_"), good, body, ErrInvalidSignature},
		{"empty secret", "", mac("", string(body)), body, ErrInvalidSignature},
		{"body changed by one byte", katSecret, good, flipped, ErrInvalidSignature},
		{"body with a trailing newline", katSecret, good, append(bytes.Clone(body), '\n'), ErrInvalidSignature},
		{"re-serialized body", katSecret, good, []byte(`{"event":"transcript.created","delivery_id":"evt_x","n":[1,2]}`), ErrInvalidSignature},
		{"empty body", katSecret, good, nil, ErrInvalidSignature},
		{"truncated signature", katSecret, good[:63], body, ErrInvalidSignature},
		{"half signature", katSecret, good[:32], body, ErrInvalidSignature},
		{"one hex digit", katSecret, good[:1], body, ErrInvalidSignature},
		{"signature too long", katSecret, good + "00", body, ErrInvalidSignature},
		{"signature of another body", katSecret, mac(katSecret, "{}"), body, ErrInvalidSignature},
		{"last digit changed", katSecret, good[:63] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", good[63])+1)%16]), body, ErrInvalidSignature},
		{"upper case", katSecret, strings.ToUpper(good), body, ErrMalformedHeader},
		{"non-hex", katSecret, "zz" + good[2:], body, ErrMalformedHeader},
		{"empty header", katSecret, "", body, ErrMalformedHeader},
		{"V1 header given to Verify", katSecret, "t=1,v1=" + good, body, ErrMalformedHeader},
		{"sha256= prefix", katSecret, "sha256=" + good, body, ErrMalformedHeader},
		{"base64", katSecret, "U8rumP/Qd/VgpbvfCoROtZbQ5t2GK8NdaxuaVtq02fI=", body, ErrMalformedHeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(tc.secret, tc.header, tc.body)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestVerifyTimestamped(t *testing.T) {
	body := []byte(katBody)
	now := time.Unix(katUnix, 0)
	v1 := func(secret string, unix int64) string {
		return mac(secret, strconv.FormatInt(unix, 10)+"."+katBody)
	}
	ts := "t=1767225600"
	const tol = 5 * time.Minute
	for _, tc := range []struct {
		name      string
		secret    string
		header    string
		body      []byte
		tolerance time.Duration
		now       time.Time
		want      error
	}{
		{"good", katSecret, ts + ",v1=" + katV1, body, tol, now, nil},
		{"spaces around parts", katSecret, " t=1767225600 , v1=" + katV1 + " ", body, tol, now, nil},
		{"v1 before t", katSecret, "v1=" + katV1 + "," + ts, body, tol, now, nil},
		{"unknown scheme ignored", katSecret, ts + ",v0=abc,v2=whatever,v1=" + katV1, body, tol, now, nil},
		{"rotation, current secret", katSecret, ts + ",v1=" + katV1 + ",v1=" + katV1Previous, body, tol, now, nil},
		{"rotation, previous secret", katPrevious, ts + ",v1=" + katV1 + ",v1=" + katV1Previous, body, tol, now, nil},
		{"only previous v1, current secret", katSecret, ts + ",v1=" + katV1Previous, body, tol, now, ErrInvalidSignature},
		{"wrong secret", "whsec_wrong", ts + ",v1=" + katV1 + ",v1=" + katV1Previous, body, tol, now, ErrInvalidSignature},
		{"empty secret", "", ts + ",v1=" + mac("", "1767225600."+katBody), body, tol, now, ErrInvalidSignature},
		{"body changed by one byte", katSecret, ts + ",v1=" + katV1, []byte(strings.Replace(katBody, "completed", "complete_", 1)), tol, now, ErrInvalidSignature},
		{"re-serialized body", katSecret, ts + ",v1=" + katV1, []byte(strings.ReplaceAll(katBody, `":`, `": `)), tol, now, ErrInvalidSignature},
		{"plain signature as v1", katSecret, ts + ",v1=" + katPlain, body, tol, now, ErrInvalidSignature},
		{"timestamp changed", katSecret, "t=1767225601,v1=" + katV1, body, 0, now, ErrInvalidSignature},
		{"leading zero in t", katSecret, "t=01767225600,v1=" + katV1, body, 0, now, ErrInvalidSignature},
		{"truncated v1", katSecret, ts + ",v1=" + katV1[:60], body, tol, now, ErrInvalidSignature},
		{"upper-case v1", katSecret, ts + ",v1=" + strings.ToUpper(katV1), body, tol, now, ErrMalformedHeader},
		{"non-hex v1", katSecret, ts + ",v1=" + "g" + katV1[1:], body, tol, now, ErrMalformedHeader},
		{"empty v1", katSecret, ts + ",v1=", body, tol, now, ErrMalformedHeader},
		{"missing t", katSecret, "v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"missing v1", katSecret, ts, body, tol, now, ErrMalformedHeader},
		{"t twice", katSecret, ts + "," + ts + ",v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"negative t", katSecret, "t=-1,v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"t not a number", katSecret, "t=yesterday,v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"t in RFC 3339", katSecret, "t=2026-01-01T00:00:00Z,v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"t too large for int64", katSecret, "t=99999999999999999999,v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"empty t", katSecret, "t=,v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"empty header", katSecret, "", body, tol, now, ErrMalformedHeader},
		{"garbage", katSecret, "garbage", body, tol, now, ErrMalformedHeader},
		{"plain signature only", katSecret, katPlain, body, tol, now, ErrMalformedHeader},
		{"semicolons", katSecret, ts + ";v1=" + katV1, body, tol, now, ErrMalformedHeader},
		{"trailing comma", katSecret, ts + ",v1=" + katV1 + ",", body, tol, now, ErrMalformedHeader},
		{"at the edge, old", katSecret, ts + ",v1=" + katV1, body, tol, now.Add(tol), nil},
		{"at the edge, new", katSecret, ts + ",v1=" + katV1, body, tol, now.Add(-tol), nil},
		{"older than tolerance", katSecret, ts + ",v1=" + katV1, body, tol, now.Add(tol + time.Second), ErrTimestampOutOfRange},
		{"newer than tolerance", katSecret, ts + ",v1=" + katV1, body, tol, now.Add(-tol - time.Second), ErrTimestampOutOfRange},
		{"a day old", katSecret, ts + ",v1=" + katV1, body, tol, now.Add(24 * time.Hour), ErrTimestampOutOfRange},
		{"a day old, tolerance 0", katSecret, ts + ",v1=" + katV1, body, 0, now.Add(24 * time.Hour), nil},
		{"t=0, far past", katSecret, "t=0,v1=" + v1(katSecret, 0), body, tol, now, ErrTimestampOutOfRange},
		{"t far future", katSecret, "t=999999999999999999,v1=" + v1(katSecret, 999999999999999999), body, tol, now, ErrTimestampOutOfRange},
		{"t far future, now zero", katSecret, "t=999999999999999999,v1=" + v1(katSecret, 999999999999999999), body, tol, time.Time{}, ErrTimestampOutOfRange},
		{"stale and wrong secret", "whsec_wrong", ts + ",v1=" + katV1, body, tol, now.Add(time.Hour), ErrInvalidSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifyTimestamped(tc.secret, tc.header, tc.body, tc.tolerance, tc.now)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("VerifyTimestamped = %v, want %v", err, tc.want)
			}
		})
	}
}

// errReader fails after its data.
type errReader struct{ r io.Reader }

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

func TestVerifyRequest(t *testing.T) {
	body := katBody
	now := time.Now()
	unix := strconv.FormatInt(now.Unix(), 10)
	v1 := "t=" + unix + ",v1=" + mac(katSecret, unix+"."+body)
	staleUnix := strconv.FormatInt(now.Add(-time.Hour).Unix(), 10)
	stale := "t=" + staleUnix + ",v1=" + mac(katSecret, staleUnix+"."+body)
	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		want    error
	}{
		{"plain only is refused", map[string]string{HeaderSignature: katPlain}, body, ErrMalformedHeader},
		{"V1 only", map[string]string{HeaderSignatureV1: v1}, body, nil},
		{"both", map[string]string{HeaderSignature: katPlain, HeaderSignatureV1: v1}, body, nil},
		{"lower-case header names", map[string]string{"x-svc-signature-v1": v1}, body, nil},
		{"no signature", map[string]string{}, body, ErrMalformedHeader},
		{"V1 wins over a good plain", map[string]string{HeaderSignature: katPlain, HeaderSignatureV1: stale}, body, ErrTimestampOutOfRange},
		{"bad V1 does not fall back", map[string]string{HeaderSignature: katPlain, HeaderSignatureV1: "garbage"}, body, ErrMalformedHeader},
		{"stale V1", map[string]string{HeaderSignatureV1: stale}, body, ErrTimestampOutOfRange},
		{"changed body, V1", map[string]string{HeaderSignatureV1: v1}, body + " ", ErrInvalidSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(tc.body))
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			got, err := VerifyRequest(r, katSecret, 5*time.Minute)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("VerifyRequest = %v, want %v", err, tc.want)
			}
			if err == nil && string(got) != tc.body {
				t.Fatalf("VerifyRequest returned %q, want %q", got, tc.body)
			}
			// The body is readable again whatever the outcome.
			again, _ := io.ReadAll(r.Body)
			if string(again) != tc.body {
				t.Fatalf("r.Body after VerifyRequest = %q, want %q", again, tc.body)
			}
		})
	}

	t.Run("nil body", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/hook", nil)
		r.Body = nil
		r.Header.Set(HeaderSignatureV1, "t="+unix+",v1="+mac(katSecret, unix+"."))
		got, err := VerifyRequest(r, katSecret, 0)
		if err != nil || len(got) != 0 {
			t.Fatalf("VerifyRequest(nil body) = %q, %v", got, err)
		}
	})

	t.Run("read error", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/hook", errReader{strings.NewReader(body)})
		r.Header.Set(HeaderSignatureV1, v1)
		if _, err := VerifyRequest(r, katSecret, 0); err == nil || errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("VerifyRequest(read error) = %v, want the read error", err)
		}
	})

	t.Run("body over MaxBytesReader", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 10)
		r.Header.Set(HeaderSignatureV1, v1)
		_, err := VerifyRequest(r, katSecret, 0)
		var tooBig *http.MaxBytesError
		if !errors.As(err, &tooBig) {
			t.Fatalf("VerifyRequest(too big) = %v, want *http.MaxBytesError", err)
		}
	})
}

func TestVerifyRequestAllowUntimestamped(t *testing.T) {
	body := katBody
	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		want    error
	}{
		{"plain only is accepted", map[string]string{HeaderSignature: katPlain}, body, nil},
		{"no signature", map[string]string{}, body, ErrMalformedHeader},
		{"wrong plain", map[string]string{HeaderSignature: mac("whsec_wrong", body)}, body, ErrInvalidSignature},
		{"changed body, plain", map[string]string{HeaderSignature: katPlain}, body + " ", ErrInvalidSignature},
		{"a bad V1 does not fall back to a good plain", map[string]string{HeaderSignature: katPlain, HeaderSignatureV1: "garbage"}, body, ErrMalformedHeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(tc.body))
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			_, err := VerifyRequest(r, katSecret, DefaultTolerance, AllowUntimestamped())
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("VerifyRequest(AllowUntimestamped) = %v, want %v", err, tc.want)
			}
		})
	}
}

// A delivery captured in transit and sent again later is refused, also when the replayer
// strips the timestamped header and keeps only the plain signature.
func TestACapturedDeliveryCannotBeReplayedByStrippingTheTimestamp(t *testing.T) {
	body := katBody
	sent := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	unix := strconv.FormatInt(sent.Unix(), 10)
	captured := http.Header{}
	captured.Set(HeaderSignature, Sign(katSecret, []byte(body)))
	captured.Set(HeaderTimestamp, unix)
	captured.Set(HeaderSignatureV1, "t="+unix+",v1="+SignTimestamped(katSecret, sent.Unix(), []byte(body)))
	replay := func(at time.Time, strip ...string) error {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
		r.Header = captured.Clone()
		for _, h := range strip {
			r.Header.Del(h)
		}
		_, err := VerifyRequest(r, katSecret, DefaultTolerance, withClock(func() time.Time { return at }))
		return err
	}
	if err := replay(sent.Add(time.Minute)); err != nil {
		t.Fatalf("the delivery itself, a minute after signing: %v", err)
	}
	later := sent.Add(time.Hour)
	if err := replay(later); !errors.Is(err, ErrTimestampOutOfRange) {
		t.Fatalf("replayed an hour later = %v, want ErrTimestampOutOfRange", err)
	}
	if err := replay(later, HeaderSignatureV1); !errors.Is(err, ErrMalformedHeader) {
		t.Fatalf("replayed an hour later without %s = %v, want ErrMalformedHeader", HeaderSignatureV1, err)
	}
	if err := replay(later, HeaderSignatureV1, HeaderTimestamp); !errors.Is(err, ErrMalformedHeader) {
		t.Fatalf("replayed an hour later with only %s = %v, want ErrMalformedHeader", HeaderSignature, err)
	}
}

func TestLengthsFailCleanly(t *testing.T) {
	body := []byte(katBody)
	for n := 0; n <= 130; n++ {
		sig := strings.Repeat("a", n)
		err := Verify(katSecret, sig, body)
		if err == nil {
			t.Fatalf("Verify accepted %d characters", n)
		}
		if n > 0 && !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("Verify(%d hex characters) = %v, want ErrInvalidSignature", n, err)
		}
		if n > 0 {
			err = VerifyTimestamped(katSecret, "t=1767225600,v1="+sig, body, 0, time.Time{})
			if !errors.Is(err, ErrInvalidSignature) {
				t.Fatalf("VerifyTimestamped(%d hex characters) = %v, want ErrInvalidSignature", n, err)
			}
		}
	}
	// Every proper prefix of the right signature fails too.
	for n := range len(katPlain) {
		if err := Verify(katSecret, katPlain[:n], body); err == nil {
			t.Fatalf("Verify accepted the first %d characters of the signature", n)
		}
	}
}
