package ids

import (
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := New("tr")
		if !Valid("tr", id) {
			t.Fatalf("New made an invalid id %q", id)
		}
		if len(id) != len("tr_")+Length {
			t.Fatalf("id %q has length %d", id, len(id))
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
	}
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		prefix, id string
		want       bool
	}{
		{"tr", "tr_abc123", true},
		{"tr", "tr_", false},
		{"tr", "tr-abc", false},
		{"tr", "org_abc", false},
		{"tr", "tr_ABC", false},
		{"tr", "tr_a/b", false},
		{"tr", "tr_a_b", false},
		{"tr", "tr_" + string(make([]byte, 70)), false},
		{"org", "org_x", true},
	} {
		if got := Valid(tc.prefix, tc.id); got != tc.want {
			t.Errorf("Valid(%q, %q) = %v, want %v", tc.prefix, tc.id, got, tc.want)
		}
	}
}

func TestNewSortable(t *testing.T) {
	base := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	prev := ""
	for i := range 100 {
		id := NewSortable("tr", base.Add(time.Duration(i)*time.Millisecond))
		if !Valid("tr", id) || len(id) != len("tr_")+Length {
			t.Fatalf("NewSortable made %q", id)
		}
		if id <= prev {
			t.Fatalf("%q does not sort after %q", id, prev)
		}
		prev = id
	}
	if NewSortable("tr", base) == NewSortable("tr", base) { //nolint:staticcheck // two calls, two random parts
		t.Fatal("two ids of the same millisecond are equal")
	}
}
