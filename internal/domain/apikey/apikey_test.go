package apikey

import (
	"regexp"
	"strings"
	"testing"
)

var labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

func TestNew(t *testing.T) {
	a, b := New(), New()
	if a == b {
		t.Fatal("two keys are equal")
	}
	for _, k := range []string{a, b} {
		if !strings.HasPrefix(k, Prefix) || !WellFormed(k) {
			t.Fatalf("New() = %q is not well formed", k)
		}
	}
}

func TestWellFormed(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"sk_live_abcdefghijklmnopqrstuvwxyz012345", true},
		{"sk_live_short", false},
		{"sk_test_abcdefghijklmnopqrstuvwxyz012345", false},
		{"abcdefghijklmnopqrstuvwxyz012345", false},
		{"sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", false},
		{"sk_live_abcdefghijklmnop qrstuvwxyz", false},
		{"", false},
	} {
		if got := WellFormed(tc.key); got != tc.want {
			t.Errorf("WellFormed(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

func TestLookupHash(t *testing.T) {
	k := New()
	h := LookupHash(k)
	if len(h) != 52 || !labelValue.MatchString(h) {
		t.Fatalf("LookupHash = %q is no label value of 52 characters", h)
	}
	if h != LookupHash(k) {
		t.Fatal("LookupHash is not deterministic")
	}
	if h == LookupHash(k+"x") {
		t.Fatal("different keys share a hash")
	}
}

func TestEqual(t *testing.T) {
	if !Equal("sk_live_a", "sk_live_a") || Equal("sk_live_a", "sk_live_b") || Equal("sk_live_a", "sk_live_ab") {
		t.Fatal("Equal is wrong")
	}
}
