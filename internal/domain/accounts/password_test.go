package accounts

import (
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(h, "correct horse") {
		t.Fatalf("hash = %q", h)
	}
	h2, _ := HashPassword("correct horse battery")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{{"correct horse battery", true}, {"correct horse batterY", false}, {"", false}} {
		if got, err := CheckPassword(h, tc.password); err != nil || got != tc.want {
			t.Errorf("CheckPassword(%q) = %t, %v; want %t", tc.password, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=19$m=x$AA$AA", "plain"} {
		if _, err := CheckPassword(bad, "x"); err == nil {
			t.Errorf("CheckPassword(%q) accepted a malformed hash", bad)
		}
	}
}

func TestValidation(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{" Ann@Example.org ", "ann@example.org", true},
		{"", "", false},
		{"ann", "", false},
		{"Ann <ann@example.org>", "", false},
	} {
		got, err := NormalizeEmail(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v", tc.in, got, err)
		}
	}
	if ValidatePassword("short") == nil || ValidatePassword("long enough pw") != nil {
		t.Error("ValidatePassword does not enforce the minimum length")
	}
	if ValidateRole("admin") != nil || ValidateRole("root") == nil {
		t.Error("ValidateRole")
	}
	if !RoleAtLeast("owner", "admin") || RoleAtLeast("member", "admin") || !RoleAtLeast("admin", "admin") {
		t.Error("RoleAtLeast")
	}
}
