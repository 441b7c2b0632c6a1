package accounts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

func TestAccounts(t *testing.T) {
	ctx := context.Background()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "accounts")
	org, err := orgs.Create(ctx, c, ns, "Grace Chapel", nil)
	if err != nil {
		t.Fatal(err)
	}
	orgID := org.Spec.ID
	clk := clocktesting.NewFakeClock(time.Now())
	newAccounts := func() *Accounts {
		a, err := New(Options{Client: c, Namespace: ns, Clock: clk, SessionIdle: 30 * time.Minute, SessionMax: 2 * time.Hour,
			LockAfter: 3, LockFor: time.Minute, InvitationTTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := newAccounts()
	const owner, password = "ann@example.org", "correct horse battery"

	t.Run("an invitation of a new email grants nothing until its link sets a password, once", func(t *testing.T) {
		if _, _, err := a.Invite(ctx, orgID, "not an email", RoleOwner, "admin"); !isField(err, "email") {
			t.Fatalf("bad email: %v", err)
		}
		if _, _, err := a.Invite(ctx, orgID, owner, "root", "admin"); !isField(err, "role") {
			t.Fatalf("bad role: %v", err)
		}
		_, stale, err := a.Invite(ctx, orgID, "Ann@Example.org", RoleOwner, "admin")
		if err != nil || stale == "" {
			t.Fatalf("invite: %q, %v", stale, err)
		}
		inv, token, err := a.Invite(ctx, orgID, owner, RoleOwner, "admin")
		if err != nil || token == "" || inv.HasAccount || !inv.ExpiresAt.Equal(clk.Now().Add(time.Hour).Truncate(time.Second)) {
			t.Fatalf("invite: %+v %q, %v", inv, token, err)
		}
		if _, err := a.Role(ctx, orgID, owner); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an invited email is a member before accepting: %v", err)
		}
		if got, err := a.Invitations(ctx, orgID); err != nil || len(got) != 1 || got[0].Email != owner || got[0].InvitedBy != "admin" {
			t.Fatalf("the organization's invitations: %+v, %v", got, err)
		}
		if _, err := a.InvitationByToken(ctx, stale); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("a replaced invitation: %v", err)
		}
		if _, err := a.AcceptWithPassword(ctx, token, "short"); !isField(err, "password") {
			t.Fatalf("short password: %v", err)
		}
		inv, err = a.AcceptWithPassword(ctx, token, password)
		if err != nil || inv.Email != owner || inv.Role != RoleOwner || inv.OrganizationID != orgID {
			t.Fatalf("accept: %+v, %v", inv, err)
		}
		if role, err := a.Role(ctx, orgID, owner); err != nil || role != RoleOwner {
			t.Fatalf("role after accepting: %q, %v", role, err)
		}
		if _, err := a.AcceptWithPassword(ctx, token, "another long password"); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("second use: %v", err)
		}
		if got, err := a.Invitations(ctx, orgID); err != nil || len(got) != 0 {
			t.Fatalf("invitations left after accepting: %+v, %v", got, err)
		}
		_, expiring, err := a.Invite(ctx, orgID, "bob@example.org", RoleMember, owner)
		if err != nil {
			t.Fatal(err)
		}
		clk.Step(2 * time.Hour)
		if _, err := a.AcceptWithPassword(ctx, expiring, password); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("expired invitation: %v", err)
		}
		if _, _, err := a.Invite(ctx, orgID, owner, RoleMember, owner); !isField(err, "email") {
			t.Fatalf("inviting a member: %v", err)
		}
	})

	t.Run("the password is stored as an argon2id hash only", func(t *testing.T) {
		var list corev1.SecretList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range list.Items {
			for k, v := range s.Data {
				if strings.Contains(string(v), password) {
					t.Fatalf("secret %s key %s holds the password in clear", s.Name, k)
				}
			}
			if s.Type == SecretTypePassword {
				found = strings.HasPrefix(string(s.Data[keyPassword]), "$argon2id$")
			}
		}
		if !found {
			t.Fatal("no argon2id password secret")
		}
	})

	t.Run("sessions live in the cluster and expire", func(t *testing.T) {
		s, err := a.SignIn(ctx, "  ANN@example.org ", password)
		if err != nil {
			t.Fatal(err)
		}
		// Another replica, or the same after a restart, knows the session.
		got, err := newAccounts().Session(ctx, s.Token)
		if err != nil || got.Email != owner || got.CSRF != s.CSRF || got.CSRF == "" {
			t.Fatalf("session from another instance: %+v, %v", got, err)
		}
		clk.Step(20 * time.Minute)
		if _, err := a.Session(ctx, s.Token); err != nil {
			t.Fatalf("within the idle time: %v", err)
		}
		clk.Step(31 * time.Minute)
		if _, err := a.Session(ctx, s.Token); !errors.Is(err, ErrNoSession) {
			t.Fatalf("after the idle time: %v", err)
		}
		// Used every 25 minutes, a session still ends at its absolute expiry.
		s, err = a.SignIn(ctx, owner, password)
		if err != nil {
			t.Fatal(err)
		}
		alive := 0
		for i := 0; i < 6; i++ {
			clk.Step(25 * time.Minute)
			if _, err := a.Session(ctx, s.Token); err == nil {
				alive++
			}
		}
		if alive != 4 {
			t.Fatalf("a session used every 25 minutes lived %d×25 minutes, want 4 (2 h max)", alive)
		}
		s, err = a.SignIn(ctx, owner, password)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.SignOut(ctx, s.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Session(ctx, s.Token); !errors.Is(err, ErrNoSession) {
			t.Fatalf("after sign-out: %v", err)
		}
	})

	t.Run("expired sessions and invitations are swept", func(t *testing.T) {
		// What the subtests above left expired.
		if _, err := a.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		live, err := a.SignIn(ctx, owner, password)
		if err != nil {
			t.Fatal(err)
		}
		_, tok, err := a.Invite(ctx, orgID, "dee@example.org", RoleMember, owner)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := a.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("sweeping with nothing expired: %d, %v", n, err)
		}
		clk.Step(3 * time.Hour)
		if n, err := a.Sweep(ctx); err != nil || n < 2 {
			t.Fatalf("sweeping after expiry: %d, %v", n, err)
		}
		var list corev1.SecretList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, s := range list.Items {
			if s.Type == SecretTypeSession || s.Type == SecretTypeInvitation {
				t.Errorf("%s %s survived the sweep", s.Type, s.Name)
			}
		}
		if _, err := a.Session(ctx, live.Token); !errors.Is(err, ErrNoSession) {
			t.Fatalf("a swept session: %v", err)
		}
		if _, err := a.InvitationByToken(ctx, tok); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("a swept invitation: %v", err)
		}
	})

	t.Run("failed sign-ins lock an account; unknown emails fail alike and leave nothing", func(t *testing.T) {
		before := secretNames(t, c, ns)
		for _, email := range []string{owner, "nobody@example.org"} {
			for i := 0; i < 3; i++ {
				if _, err := a.SignIn(ctx, email, "wrong password"); !errors.Is(err, ErrSignInFailed) {
					t.Fatalf("%s wrong password: %v", email, err)
				}
			}
		}
		if _, err := a.SignIn(ctx, owner, password); !errors.Is(err, ErrSignInFailed) {
			t.Fatalf("a locked email signed in: %v", err)
		}
		// The count lives in the cluster: another replica refuses it too.
		if _, err := newAccounts().SignIn(ctx, owner, password); !errors.Is(err, ErrSignInFailed) {
			t.Fatalf("a locked email signed in on another replica: %v", err)
		}
		if after := secretNames(t, c, ns); !slices.Equal(after, before) {
			t.Fatalf("failed sign-ins changed the Secrets from %v to %v", before, after)
		}
		clk.Step(2 * time.Minute)
		if _, err := a.SignIn(ctx, owner, password); err != nil {
			t.Fatalf("after the lock: %v", err)
		}
		// A success clears the count.
		var sec corev1.Secret
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: passwordSecretName(owner)}, &sec); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{annotationFailures, annotationFirstFailure, annotationLockedUntil} {
			if v, ok := sec.Annotations[k]; ok {
				t.Errorf("after a sign-in the password Secret keeps %s=%s", k, v)
			}
		}
	})

	t.Run("counts of failed sign-ins of earlier versions are swept", func(t *testing.T) {
		old := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "signin-" + hashHex("old@example.org")[:40],
				Annotations: map[string]string{annotationFailures: "2", annotationFirstFailure: clk.Now().UTC().Format(time.RFC3339)}},
			Type: SecretTypeSignIn,
		}
		if err := c.Create(ctx, old); err != nil {
			t.Fatal(err)
		}
		if n, err := a.Sweep(ctx); err != nil || n < 1 {
			t.Fatalf("sweeping: %d, %v", n, err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(old), old); !apierrors.IsNotFound(err) {
			t.Fatalf("an old count of failed sign-ins survived the sweep: %v", err)
		}
	})

	t.Run("members: roles, last owner, removal ends sessions", func(t *testing.T) {
		if err := a.SetMember(ctx, orgID, owner, RoleAdmin); !errors.Is(err, ErrLastOwner) {
			t.Fatalf("demoting the last owner: %v", err)
		}
		if err := a.RemoveMember(ctx, orgID, owner); !errors.Is(err, ErrLastOwner) {
			t.Fatalf("removing the last owner: %v", err)
		}
		_, tok, err := a.Invite(ctx, orgID, "cy@example.org", RoleAdmin, owner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.AcceptWithPassword(ctx, tok, "cy's long password"); err != nil {
			t.Fatal(err)
		}
		s, err := a.SignIn(ctx, "cy@example.org", "cy's long password")
		if err != nil {
			t.Fatal(err)
		}
		if role, err := a.Role(ctx, orgID, "cy@example.org"); err != nil || role != RoleAdmin {
			t.Fatalf("role = %q, %v", role, err)
		}
		if err := a.RemoveMember(ctx, orgID, "cy@example.org"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Session(ctx, s.Token); !errors.Is(err, ErrNoSession) {
			t.Fatalf("the session of a removed member: %v", err)
		}
		if _, err := a.Role(ctx, orgID, "cy@example.org"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a removed member's role: %v", err)
		}
	})
}

// secretNames lists the names of the Secrets in ns, sorted.
func secretNames(t *testing.T, c client.Client, ns string) []string {
	t.Helper()
	var list corev1.SecretList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
}

func isField(err error, field string) bool {
	var fe *FieldError
	return errors.As(err, &fe) && fe.Field == field
}

// TestNobodySetsAnothersPassword checks the rules that keep an owner of one organization from
// taking over the account of someone else: invitations of an account touch neither its password
// nor its sessions and grant nothing until that person accepts them signed in, and passwords are
// set only with tokens that go to the owner of the email, stored hashed, used once.
func TestNobodySetsAnothersPassword(t *testing.T) {
	ctx := context.Background()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "takeover")
	clk := clocktesting.NewFakeClock(time.Now())
	a, err := New(Options{Client: c, Namespace: ns, Clock: clk, InvitationTTL: 24 * time.Hour, ResetTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	newOrg := func(name, owner, password string) string {
		t.Helper()
		org, err := orgs.Create(ctx, c, ns, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, tok, err := a.Invite(ctx, org.Spec.ID, owner, RoleOwner, "cluster-admin")
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
		if _, err := a.AcceptWithPassword(ctx, tok, password); err != nil {
			t.Fatal(err)
		}
		return org.Spec.ID
	}
	const alice, bob, carol = "alice@a.example", "bob@b.example", "carol@c.example"
	const bobPassword = "bob's own long password"
	orgA := newOrg("A", alice, "alice's long password")
	orgB := newOrg("B", bob, bobPassword)
	newOrg("C", carol, "carol's long password")
	bobSession, err := a.SignIn(ctx, bob, bobPassword)
	if err != nil {
		t.Fatal(err)
	}
	bobUntouched := func(t *testing.T) {
		t.Helper()
		if _, err := a.Session(ctx, bobSession.Token); err != nil {
			t.Fatalf("bob's session ended: %v", err)
		}
		s, err := a.SignIn(ctx, bob, bobPassword)
		if err != nil {
			t.Fatalf("bob's password no longer works: %v", err)
		}
		_ = a.SignOut(ctx, s.Token)
	}

	t.Run("an invitation of an account has no link and grants nothing until accepted", func(t *testing.T) {
		inv, token, err := a.Invite(ctx, orgA, "BOB@b.example", RoleOwner, alice)
		if err != nil || token != "" || !inv.HasAccount {
			t.Fatalf("invite of an account: %+v, token %q, %v", inv, token, err)
		}
		bobUntouched(t)
		if _, err := a.Role(ctx, orgA, bob); !errors.Is(err, ErrNotFound) {
			t.Fatalf("bob is a member of A before accepting: %v", err)
		}
		pending, err := a.PendingInvitations(ctx, bob)
		if err != nil || len(pending) != 1 || pending[0].OrganizationID != orgA || pending[0].DisplayName != "A" || pending[0].Role != RoleOwner {
			t.Fatalf("bob's pending invitations: %+v, %v", pending, err)
		}
		if got, _ := a.PendingInvitations(ctx, alice); len(got) != 0 {
			t.Fatalf("alice sees bob's invitation: %+v", got)
		}
		// Only bob's own session accepts for bob: an invitation is named by its organization and
		// the signed-in email.
		if _, err := a.AcceptInvitation(ctx, orgA, alice); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("alice accepting for herself: %v", err)
		}
		if _, err := a.AcceptInvitation(ctx, orgB, bob); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("accepting an invitation of another organization: %v", err)
		}
		got, err := a.AcceptInvitation(ctx, orgA, bob)
		if err != nil || got.Role != RoleOwner {
			t.Fatalf("bob accepting: %+v, %v", got, err)
		}
		if role, err := a.Role(ctx, orgA, bob); err != nil || role != RoleOwner {
			t.Fatalf("bob's role in A after accepting: %q, %v", role, err)
		}
		if _, err := a.AcceptInvitation(ctx, orgA, bob); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("accepting twice: %v", err)
		}
		bobUntouched(t)
		if err := a.RemoveMember(ctx, orgA, bob); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("revoked and declined invitations are gone", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			end  func(ctx context.Context, orgID, email string) (*Invitation, error)
		}{
			{"revoked by the organization", a.RevokeInvitation},
			{"declined by the person", a.DeclineInvitation},
		} {
			if _, _, err := a.Invite(ctx, orgA, carol, RoleMember, alice); err != nil {
				t.Fatal(err)
			}
			if _, err := tc.end(ctx, orgA, carol); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got, _ := a.PendingInvitations(ctx, carol); len(got) != 0 {
				t.Fatalf("%s: still pending: %+v", tc.name, got)
			}
			if _, err := a.AcceptInvitation(ctx, orgA, carol); !errors.Is(err, ErrInvitationGone) {
				t.Fatalf("%s: accepted: %v", tc.name, err)
			}
		}
		// A revoked link of a new email stops working too.
		_, tok, err := a.Invite(ctx, orgA, "dan@d.example", RoleMember, alice)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.RevokeInvitation(ctx, orgA, "dan@d.example"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.AcceptWithPassword(ctx, tok, "dan's long password"); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("a revoked link: %v", err)
		}
	})

	t.Run("a link of a new email sets nothing once the email has a password", func(t *testing.T) {
		_, tok, err := a.Invite(ctx, orgA, "erin@e.example", RoleMember, alice)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.Invite(ctx, orgB, "erin@e.example", RoleMember, bob); err != nil {
			t.Fatal(err)
		}
		// Erin sets a password through B's link first (it replaced nothing of A's).
		pending, _ := a.PendingInvitations(ctx, "erin@e.example")
		if len(pending) != 2 {
			t.Fatalf("erin's pending invitations: %+v", pending)
		}
		_, tokB, err := a.Invite(ctx, orgB, "erin@e.example", RoleMember, bob)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.AcceptWithPassword(ctx, tokB, "erin's long password"); err != nil {
			t.Fatal(err)
		}
		inv, err := a.InvitationByToken(ctx, tok)
		if err != nil || !inv.HasAccount {
			t.Fatalf("A's link after erin has a password: %+v, %v", inv, err)
		}
		if _, err := a.AcceptWithPassword(ctx, tok, "a password chosen by alice"); !errors.Is(err, ErrHasAccount) {
			t.Fatalf("A's link set a password: %v", err)
		}
		if _, err := a.SignIn(ctx, "erin@e.example", "erin's long password"); err != nil {
			t.Fatalf("erin's password changed: %v", err)
		}
		if _, err := a.AcceptInvitation(ctx, orgA, "erin@e.example"); err != nil {
			t.Fatalf("erin accepting A signed in: %v", err)
		}
	})

	t.Run("a reset goes to existing accounts only, once a minute, replaces the earlier, ends sessions", func(t *testing.T) {
		for _, email := range []string{"nobody@x.example", "not an email", ""} {
			if tok, err := a.RequestReset(ctx, email); tok != "" || err != nil {
				t.Fatalf("a reset of %q: %q, %v", email, tok, err)
			}
		}
		if _, err := a.IssueReset(ctx, "nobody@x.example"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an admin's reset of an unknown email: %v", err)
		}
		first, err := a.RequestReset(ctx, bob)
		if err != nil || first == "" {
			t.Fatalf("a reset of bob: %q, %v", first, err)
		}
		if tok, err := a.RequestReset(ctx, bob); tok != "" || err != nil {
			t.Fatalf("a second reset within a minute: %q, %v", tok, err)
		}
		bobUntouched(t) // asking changes nothing
		clk.Step(61 * time.Second)
		second, err := a.RequestReset(ctx, bob)
		if err != nil || second == "" {
			t.Fatalf("a reset after a minute: %q, %v", second, err)
		}
		if _, err := a.CompleteReset(ctx, first, "a new long password"); !errors.Is(err, ErrResetGone) {
			t.Fatalf("a replaced reset link: %v", err)
		}
		if email, err := a.ResetEmail(ctx, second); err != nil || email != bob {
			t.Fatalf("the reset's email: %q, %v", email, err)
		}
		if _, err := a.CompleteReset(ctx, second, "short"); !isField(err, "password") {
			t.Fatalf("a short password: %v", err)
		}
		if email, err := a.CompleteReset(ctx, second, "bob's new long password"); err != nil || email != bob {
			t.Fatalf("completing the reset: %q, %v", email, err)
		}
		if _, err := a.Session(ctx, bobSession.Token); !errors.Is(err, ErrNoSession) {
			t.Fatalf("bob's session survived the reset: %v", err)
		}
		if _, err := a.CompleteReset(ctx, second, "yet another password"); !errors.Is(err, ErrResetGone) {
			t.Fatalf("a reset link used twice: %v", err)
		}
		if _, err := a.SignIn(ctx, bob, "bob's new long password"); err != nil {
			t.Fatalf("the new password: %v", err)
		}
		expiring, err := a.IssueReset(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		clk.Step(61 * time.Minute)
		if _, err := a.CompleteReset(ctx, expiring, "a late long password"); !errors.Is(err, ErrResetGone) {
			t.Fatalf("an expired reset link: %v", err)
		}
		tokens = append(tokens, first, second, expiring)
	})

	t.Run("invitations of earlier versions are never used, and swept", func(t *testing.T) {
		legacy := "k" + strings.Repeat("0", tokenLength-1)
		sec := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "invite-" + hashHex(legacy)[:40], Namespace: ns,
				Annotations: map[string]string{annotationExpiresAt: clk.Now().Add(time.Hour).UTC().Format(time.RFC3339)}},
			Type: secretTypeLegacyInvitation,
			Data: map[string][]byte{keyEmail: []byte(bob), keyOrg: []byte(orgB), keyRole: []byte(RoleOwner)},
		}
		if err := c.Create(ctx, sec); err != nil {
			t.Fatal(err)
		}
		if _, err := a.AcceptWithPassword(ctx, legacy, "a password by link"); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("a legacy invitation link: %v", err)
		}
		if _, err := a.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(sec), &corev1.Secret{}); !apierrors.IsNotFound(err) {
			t.Fatalf("a legacy invitation survived the sweep: %v", err)
		}
	})

	t.Run("tokens are stored as hashes only", func(t *testing.T) {
		var list corev1.SecretList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, s := range list.Items {
			stored := s.Name + fmt.Sprint(s.Labels, s.Annotations)
			for _, v := range s.Data {
				stored += string(v)
			}
			for _, tok := range tokens {
				if strings.Contains(stored, tok) {
					t.Errorf("secret %s holds a token in clear", s.Name)
				}
			}
		}
		t.Logf("%d tokens checked against %d secrets", len(tokens), len(list.Items))
	})
}

// TestAccountFlowsNeedOnlyTheServicesRole runs every account flow as a user that has only the
// rules of the service's Role (config/rbac/role.yaml), as the chart's ServiceAccount does.
func TestAccountFlowsNeedOnlyTheServicesRole(t *testing.T) {
	ctx := context.Background()
	admin := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "role")
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.Role
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	role.ObjectMeta = metav1.ObjectMeta{Name: "tcs-manager", Namespace: ns}
	const user = "tcs-accounts-role-test"
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "tcs-manager", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}}}
	for _, o := range []client.Object{&role, binding} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Client: c, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	orgA, err := orgs.Create(ctx, admin, ns, "A", nil)
	if err != nil {
		t.Fatal(err)
	}
	orgB, err := orgs.Create(ctx, admin, ns, "B", nil)
	if err != nil {
		t.Fatal(err)
	}
	const email, password = "ann@example.org", "ann's long password"
	steps := []struct {
		name string
		run  func() error
	}{
		{"invite a new email and set its password by the link", func() error {
			_, tok, err := a.Invite(ctx, orgA.Spec.ID, email, RoleOwner, "admin")
			if err != nil {
				return err
			}
			_, err = a.AcceptWithPassword(ctx, tok, password)
			return err
		}},
		{"invite an account, list, accept signed in", func() error {
			if _, _, err := a.Invite(ctx, orgB.Spec.ID, email, RoleMember, "admin"); err != nil {
				return err
			}
			if _, err := a.Invitations(ctx, orgB.Spec.ID); err != nil {
				return err
			}
			if _, err := a.PendingInvitations(ctx, email); err != nil {
				return err
			}
			_, err := a.AcceptInvitation(ctx, orgB.Spec.ID, email)
			return err
		}},
		{"invite and revoke", func() error {
			if _, _, err := a.Invite(ctx, orgA.Spec.ID, "bob@example.org", RoleMember, email); err != nil {
				return err
			}
			_, err := a.RevokeInvitation(ctx, orgA.Spec.ID, "bob@example.org")
			return err
		}},
		{"reset the password, which ends the sessions", func() error {
			s, err := a.SignIn(ctx, email, password)
			if err != nil {
				return err
			}
			tok, err := a.RequestReset(ctx, email)
			if err != nil {
				return err
			}
			if _, err := a.CompleteReset(ctx, tok, "ann's new long password"); err != nil {
				return err
			}
			if _, err := a.Session(ctx, s.Token); !errors.Is(err, ErrNoSession) {
				return fmt.Errorf("the session survived the reset: %w", err)
			}
			return nil
		}},
		{"remove from the last organization, which ends the sessions", func() error {
			if _, err := a.SignIn(ctx, email, "ann's new long password"); err != nil {
				return err
			}
			if err := a.SetMember(ctx, orgB.Spec.ID, "cy@example.org", RoleOwner); err != nil {
				return err
			}
			return a.RemoveMember(ctx, orgB.Spec.ID, email)
		}},
		{"sweep", func() error { _, err := a.Sweep(ctx); return err }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Errorf("%s as the service's Role: %v", s.name, err)
		}
	}
}

// staleOrganizations is a client whose lists of Organizations return what they held when it was
// made, as an informer cache that has not yet seen a change does; everything else is c's.
type staleOrganizations struct {
	client.Client
	orgs tcsv1.OrganizationList
}

func (s staleOrganizations) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if l, ok := list.(*tcsv1.OrganizationList); ok {
		s.orgs.DeepCopyInto(l)
		return nil
	}
	return s.Client.List(ctx, list, opts...)
}

func TestRemovingTheLastMembershipEndsTheSessionsWhateverTheCacheHolds(t *testing.T) {
	ctx := context.Background()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "accounts-removal")
	org, err := orgs.Create(ctx, c, ns, "Hope Chapel", nil)
	if err != nil {
		t.Fatal(err)
	}
	orgID := org.Spec.ID
	a, err := New(Options{Client: c, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	const owner, dan, password = "ann@example.org", "dan@example.org", "correct horse battery"
	for _, m := range []struct{ email, role string }{{owner, RoleOwner}, {dan, RoleMember}} {
		_, token, err := a.Invite(ctx, orgID, m.email, m.role, owner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.AcceptWithPassword(ctx, token, password); err != nil {
			t.Fatal(err)
		}
	}
	s, err := a.SignIn(ctx, dan, password)
	if err != nil {
		t.Fatal(err)
	}

	// The cache still holds dan as a member of the organization when the removal is written.
	stale := staleOrganizations{Client: c}
	if err := c.List(ctx, &stale.orgs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	lagging, err := New(Options{Client: stale, Reader: c, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := lagging.Memberships(ctx, dan); len(m) != 1 {
		t.Fatalf("the stale client does not hold dan's membership: %+v", m)
	}
	if err := lagging.RemoveMember(ctx, orgID, dan); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session(ctx, s.Token); !errors.Is(err, ErrNoSession) {
		t.Fatalf("the session of a member removed from the last organization: %v", err)
	}
	if _, err := a.Role(ctx, orgID, dan); !errors.Is(err, ErrNotFound) {
		t.Fatalf("dan is still a member: %v", err)
	}
}
