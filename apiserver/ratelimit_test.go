package apiserver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/orgs"
)

func TestRateLimits(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	org, err := orgs.Create(ctx, h.client, h.namespace, "Small church", nil)
	if err != nil {
		t.Fatal(err)
	}
	org.Spec.Limits = &tcsv1.LimitOverrides{CreatePerMinute: ptr.To[int32](3), ReadPerMinute: ptr.To[int32](5)}
	if err := h.client.Update(ctx, org); err != nil {
		t.Fatal(err)
	}
	key, err := orgs.CreateKey(ctx, h.client, h.namespace, org.Spec.ID, "small")
	if err != nil {
		t.Fatal(err)
	}
	// The key reaches the cache a moment after its Secret.
	deadline := time.Now().Add(10 * time.Second)
	for h.do(t, http.MethodGet, "/api/v1/me", key.Value, "", nil).status != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the new key never authenticated")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Read class: 5 per minute, then 429; every response carries the headers.
	for i := range 5 {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts", key.Value, "", nil)
		if r.status != 200 || r.header.Get("X-RateLimit-Limit") != "5" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(4-i) {
			t.Fatalf("read %d: %d, limit %q remaining %q", i, r.status, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"))
		}
		reset, err := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < time.Now().Unix() || reset > time.Now().Add(2*time.Minute).Unix() {
			t.Fatalf("X-RateLimit-Reset %q", r.header.Get("X-RateLimit-Reset"))
		}
	}
	over := h.do(t, http.MethodGet, "/api/v1/transcripts", key.Value, "", nil)
	wantError(t, over, http.StatusTooManyRequests, ErrRateLimited, "")
	if ra, err := strconv.Atoi(over.header.Get("Retry-After")); err != nil || ra < 1 || ra > 12 {
		t.Fatalf("Retry-After %q", over.header.Get("Retry-After"))
	}
	if over.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429 with X-RateLimit-Remaining %q", over.header.Get("X-RateLimit-Remaining"))
	}
	// Reads of a transcript and of jobs are the same class.
	wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/tr_x", key.Value, "", nil), http.StatusTooManyRequests, ErrRateLimited, "")

	// Create class is counted apart: 3 per minute.
	for i := range 3 {
		r := h.paste(t, key.Value, map[string]any{"source_type": "paste", "content": "psalms 23"})
		if r.status != 201 || r.header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("create %d: %d %s", i, r.status, r.raw)
		}
	}
	wantError(t, h.paste(t, key.Value, map[string]any{"source_type": "paste", "content": "psalms 23"}), http.StatusTooManyRequests, ErrRateLimited, "")

	// Limits are per organization: another organization is not affected, and gets the spec's.
	r := h.do(t, http.MethodGet, "/api/v1/transcripts", h.keyA.Value, "", nil)
	if r.status != 200 || r.header.Get("X-RateLimit-Limit") != "600" {
		t.Fatalf("org A: %d, limit %q", r.status, r.header.Get("X-RateLimit-Limit"))
	}
	p := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "x"})
	if p.status != 201 || p.header.Get("X-RateLimit-Limit") != "60" {
		t.Fatalf("org A create: %d, limit %q", p.status, p.header.Get("X-RateLimit-Limit"))
	}
	// A second key of the same organization shares its limit.
	key2, err := orgs.CreateKey(ctx, h.client, h.namespace, org.Spec.ID, "second")
	if err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts", key2.Value, "", nil)
		if r.status == http.StatusTooManyRequests {
			break
		}
		if r.status != http.StatusUnauthorized || time.Now().After(deadline) {
			t.Fatalf("second key of a limited organization: %d %s", r.status, r.raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
