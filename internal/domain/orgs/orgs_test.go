package orgs

import (
	"errors"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/tooling/testenv"
)

func TestTheFunctionsOfAnOrganizationRefuseAnEmptyOneBeforeReadingAnything(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		call func(c client.Client) error
		// notFound is whether the error is also ErrNotFound, as the key asked for is not found.
		notFound bool
	}{
		{"creating a key", func(c client.Client) error {
			_, err := CreateKey(ctx, c, "ns", "", "a label")
			return err
		}, false},
		{"listing the keys", func(c client.Client) error {
			_, err := Keys(ctx, c, "ns", "")
			return err
		}, false},
		{"getting a key", func(c client.Client) error {
			_, err := GetKey(ctx, c, "ns", "", ids.New("key"))
			return err
		}, true},
		{"revoking a key", func(c client.Client) error {
			return RevokeKey(ctx, c, "ns", "", ids.New("key"))
		}, true},
		{"setting the settings", func(c client.Client) error {
			return SetSettings(ctx, c, "ns", "", tcsv1.OrganizationSettings{})
		}, false},
		{"reading the organization", func(c client.Client) error {
			_, err := Get(ctx, c, "ns", "")
			return err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &testenv.Untouchable{}
			err := tc.call(c)
			if !errors.Is(err, ErrNoOrganization) || errors.Is(err, ErrNotFound) != tc.notFound {
				t.Errorf("error %v, want ErrNoOrganization (and ErrNotFound: %t)", err, tc.notFound)
			}
			if c.Calls != 0 {
				t.Errorf("the client was used %d times before the empty organization was refused", c.Calls)
			}
		})
	}
	if err := CheckOrganization(ids.New("org")); err != nil {
		t.Errorf("an organization id was refused: %v", err)
	}
}

func TestCheckOrganizationRefusesWhatIsNoOrganizationID(t *testing.T) {
	for _, tc := range []struct {
		org  string
		want bool // refused
	}{
		{"", true},
		{"org_", true},
		{"acme", true},
		{"key_abc", true},
		{"org_ABC", true},
		{"org_a/b", true},
		{"org_abc123", false},
		{ids.New("org"), false},
	} {
		err := CheckOrganization(tc.org)
		if (err != nil) != tc.want || (err != nil && !errors.Is(err, ErrNoOrganization)) {
			t.Errorf("CheckOrganization(%q) = %v, want refused: %t (as ErrNoOrganization)", tc.org, err, tc.want)
		}
	}
}
