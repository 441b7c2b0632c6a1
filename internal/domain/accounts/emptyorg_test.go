package accounts

import (
	"errors"
	"testing"

	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// Every method that takes an organization refuses an empty one before it reads anything, with
// orgs.ErrNoOrganization and the error it answers for an organization or invitation it does
// not find, so that callers answer as before.
func TestTheMethodsOfAnOrganizationRefuseAnEmptyOneBeforeReadingAnything(t *testing.T) {
	ctx := t.Context()
	const email = "ann@example.org"
	for _, tc := range []struct {
		name     string
		call     func(a *Accounts) error
		notFound error
	}{
		{"reading the organization", func(a *Accounts) error { _, err := a.Organization(ctx, ""); return err }, ErrNotFound},
		{"reading a role", func(a *Accounts) error { _, err := a.Role(ctx, "", email); return err }, ErrNotFound},
		{"reading a role from the API server", func(a *Accounts) error { _, err := a.LiveRole(ctx, "", email); return err }, ErrNotFound},
		{"setting a member", func(a *Accounts) error { return a.SetMember(ctx, "", email, RoleMember) }, ErrNotFound},
		{"removing a member", func(a *Accounts) error { return a.RemoveMember(ctx, "", email) }, ErrNotFound},
		{"inviting", func(a *Accounts) error {
			_, _, err := a.Invite(ctx, "", email, RoleMember, "bob@example.org")
			return err
		}, ErrNotFound},
		{"listing the invitations", func(a *Accounts) error { _, err := a.Invitations(ctx, ""); return err }, ErrNotFound},
		{"revoking an invitation", func(a *Accounts) error { _, err := a.RevokeInvitation(ctx, "", email); return err }, ErrInvitationGone},
		{"declining an invitation", func(a *Accounts) error { _, err := a.DeclineInvitation(ctx, "", email); return err }, ErrInvitationGone},
		{"accepting an invitation", func(a *Accounts) error { _, err := a.AcceptInvitation(ctx, "", email); return err }, ErrInvitationGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &testenv.Untouchable{}
			a, err := New(Options{Client: c, Namespace: "ns"})
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(a)
			if !errors.Is(err, orgs.ErrNoOrganization) || !errors.Is(err, tc.notFound) {
				t.Errorf("error %v, want orgs.ErrNoOrganization and %v", err, tc.notFound)
			}
			if c.Calls != 0 {
				t.Errorf("the client was used %d times before the empty organization was refused", c.Calls)
			}
		})
	}
}
