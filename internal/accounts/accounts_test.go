package accounts

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/orgs"
	"tcs.dev/tcs/internal/scheme"
	"tcs.dev/tcs/internal/testenv"
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

	t.Run("invitation is single use and needs a long password", func(t *testing.T) {
		if _, err := a.Invite(ctx, orgID, "not an email", RoleOwner); !isField(err, "email") {
			t.Fatalf("bad email: %v", err)
		}
		if _, err := a.Invite(ctx, orgID, owner, "root"); !isField(err, "role") {
			t.Fatalf("bad role: %v", err)
		}
		stale, err := a.Invite(ctx, orgID, "Ann@Example.org", RoleOwner)
		if err != nil {
			t.Fatal(err)
		}
		token, err := a.Invite(ctx, orgID, owner, RoleOwner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Invitation(ctx, stale); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("a replaced invitation: %v", err)
		}
		if _, err := a.Accept(ctx, token, "short"); !isField(err, "password") {
			t.Fatalf("short password: %v", err)
		}
		inv, err := a.Accept(ctx, token, password)
		if err != nil || inv.Email != owner || inv.Role != RoleOwner || inv.OrganizationID != orgID {
			t.Fatalf("accept: %+v, %v", inv, err)
		}
		if _, err := a.Accept(ctx, token, password); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("second use: %v", err)
		}
		expiring, err := a.Invite(ctx, orgID, "bob@example.org", RoleMember)
		if err != nil {
			t.Fatal(err)
		}
		clk.Step(2 * time.Hour)
		if _, err := a.Accept(ctx, expiring, password); !errors.Is(err, ErrInvitationGone) {
			t.Fatalf("expired invitation: %v", err)
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
		tok, err := a.Invite(ctx, orgID, "dee@example.org", RoleMember)
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
		if _, err := a.Invitation(ctx, tok); !errors.Is(err, ErrInvitationGone) {
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
		tok, err := a.Invite(ctx, orgID, "cy@example.org", RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Accept(ctx, tok, "cy's long password"); err != nil {
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
