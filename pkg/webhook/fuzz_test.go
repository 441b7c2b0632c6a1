package webhook

import (
	"errors"
	"testing"
	"time"
)

func FuzzVerify(f *testing.F) {
	body := []byte(`{"event":"transcript.completed"}`)
	f.Add(Sign("whsec_test", body), body)
	f.Add("ABCDEF", body)
	f.Add("", []byte{})
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		err := Verify("whsec_test", header, body)
		if err != nil && !errors.Is(err, ErrInvalidSignature) && !errors.Is(err, ErrMalformedHeader) {
			t.Fatalf("Verify: unexpected error %v", err)
		}
		if err == nil && header != Sign("whsec_test", body) && len(header) == len(Sign("whsec_test", body)) {
			t.Fatalf("Verify accepted %q", header)
		}
	})
}

func FuzzVerifyTimestamped(f *testing.F) {
	body := []byte(`{"event":"transcript.completed"}`)
	now := time.Unix(1_800_000_000, 0)
	f.Add(SignTimestamped("whsec_test", now.Unix(), body), body)
	f.Add("t=1800000000,v1=00,v1=ff", body)
	f.Add("t=1,t=2,v1=aa", body)
	f.Add(" t = 1800000000 , v0=zz , v1=", body)
	f.Add("t=99999999999999999999999,v1=aa", body)
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		err := VerifyTimestamped("whsec_test", header, body, 5*time.Minute, now)
		switch {
		case err == nil, errors.Is(err, ErrInvalidSignature), errors.Is(err, ErrMalformedHeader), errors.Is(err, ErrTimestampOutOfRange):
		default:
			t.Fatalf("VerifyTimestamped: unexpected error %v", err)
		}
	})
}
