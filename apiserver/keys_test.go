package apiserver

import (
	"net/http"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/orgs"
)

// TestKeyLastUsedAndRevoke checks that a key's use is recorded at most once a minute and that
// a revoked key is refused.
func TestKeyLastUsedAndRevoke(t *testing.T) {
	h := newHarness(t)
	if r := h.do(t, http.MethodGet, "/api/v1/me", h.keyA.Value, "", nil); r.status != 200 {
		t.Fatalf("/me: %d", r.status)
	}
	var used string
	deadline := time.Now().Add(10 * time.Second)
	for used == "" {
		if time.Now().After(deadline) {
			t.Fatal("no last-used time recorded after a use")
		}
		time.Sleep(50 * time.Millisecond)
		used = secretOf(t, h, h.keyA.ID).Annotations[tcsv1.AnnotationAPIKeyLastUsed]
	}
	if at, err := time.Parse(time.RFC3339, used); err != nil || time.Since(at) > time.Minute {
		t.Fatalf("last used %q", used)
	}
	version := secretOf(t, h, h.keyA.ID).ResourceVersion
	for i := 0; i < 5; i++ {
		h.do(t, http.MethodGet, "/api/v1/me", h.keyA.Value, "", nil)
	}
	time.Sleep(500 * time.Millisecond)
	if v := secretOf(t, h, h.keyA.ID).ResourceVersion; v != version {
		t.Fatal("uses within a minute of the recorded one wrote the Secret again")
	}
	keys, err := orgs.Keys(t.Context(), h.client, h.namespace, h.keyA.OrganizationID)
	if err != nil || len(keys) != 1 || keys[0].LastUsed.IsZero() || keys[0].Prefix() != h.keyA.Value[:12]+"…" {
		t.Fatalf("Keys = %+v, %v", keys, err)
	}

	if err := orgs.RevokeKey(t.Context(), h.client, h.namespace, h.keyB.OrganizationID, h.keyA.ID); err == nil {
		t.Fatal("an organization revoked another's key")
	}
	if err := orgs.RevokeKey(t.Context(), h.client, h.namespace, h.keyA.OrganizationID, h.keyA.ID); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		r := h.do(t, http.MethodGet, "/api/v1/me", h.keyA.Value, "", nil)
		if r.status == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a revoked key still answers %d", r.status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := h.do(t, http.MethodGet, "/api/v1/me", h.keyB.Value, "", nil); r.status != 200 {
		t.Fatalf("the other organization's key: %d", r.status)
	}
}
