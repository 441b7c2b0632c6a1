// Package accounts holds the dashboard's people: the members of organizations and their
// roles, invitations, password accounts (argon2id hashes) and sign-in sessions. All of it lives
// in the cluster (the Organization's spec.members and Secrets), so sessions survive restarts
// and work across replicas.
package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/clocks"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/orgs"
)

// Roles of members, from most to least powerful.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Roles lists the roles in order.
var Roles = []string{RoleOwner, RoleAdmin, RoleMember}

// Secret types and keys of the objects this package keeps.
const (
	SecretTypePassword   corev1.SecretType = "tcs.dev/member-password"
	SecretTypeInvitation corev1.SecretType = "tcs.dev/invitation"
	SecretTypeSession    corev1.SecretType = "tcs.dev/session"
	SecretTypeSignIn     corev1.SecretType = "tcs.dev/signin-failures"

	// LabelEmailHash holds the hash of a member's email (see EmailHash).
	LabelEmailHash = "tcs.dev/email-hash"

	keyEmail    = "email"
	keyPassword = "password"
	keyRole     = "role"
	keyOrg      = "organization"
	keyCSRF     = "csrf"

	annotationExpiresAt = "tcs.dev/expires-at"
	annotationSeenAt    = "tcs.dev/seen-at"
	annotationCreatedAt = "tcs.dev/created-at"

	annotationFailures     = "tcs.dev/failures"
	annotationFirstFailure = "tcs.dev/first-failure"
	annotationLockedUntil  = "tcs.dev/locked-until"
)

// Errors of this package; a caller shows them without telling which one happened when that
// would reveal whether an email exists.
var (
	ErrNotFound         = errors.New("not found")
	ErrSignInFailed     = errors.New("the email or the password is wrong, or there were too many attempts: wait a few minutes and try again")
	ErrInvitationGone   = errors.New("this invitation link is not valid: it was used, expired or replaced; ask an owner of your organization for a new one")
	ErrNoSession        = errors.New("not signed in")
	ErrLastOwner        = errors.New("an organization must keep at least one owner")
	errRoleUnknown      = fmt.Errorf("role must be one of %s", strings.Join(Roles, ", "))
	errEmailUnparseable = errors.New("email is not an email address")
)

// FieldError is input refused before anything changed; Field names the offending input.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// NormalizeEmail returns the canonical form of an email address (trimmed, lower case) or a
// FieldError naming "email".
func NormalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return "", &FieldError{Field: "email", Message: "email is required"}
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return "", &FieldError{Field: "email", Message: errEmailUnparseable.Error()}
	}
	return email, nil
}

// ValidateRole refuses an unknown role.
func ValidateRole(role string) error {
	if !slices.Contains(Roles, role) {
		return &FieldError{Field: "role", Message: errRoleUnknown.Error()}
	}
	return nil
}

// RoleAtLeast reports whether role has at least the rights of min.
func RoleAtLeast(role, min string) bool {
	i, j := slices.Index(Roles, role), slices.Index(Roles, min)
	return i >= 0 && j >= 0 && i <= j
}

// EmailHash is the hex SHA-256 of a normalized email, truncated to fit label values and names.
func EmailHash(email string) string {
	return hashHex(email)[:40]
}

func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Options tune an Accounts.
type Options struct {
	// Client writes objects and reads Organizations.
	Client client.Client
	// Reader reads Secrets straight from the API server.
	Reader client.Reader
	// Namespace holds the objects.
	Namespace string
	// InvitationTTL is how long an invitation link lasts; zero means 7 days.
	InvitationTTL time.Duration
	// SessionIdle ends a session unused this long; zero means 2 hours.
	SessionIdle time.Duration
	// SessionMax ends a session this long after sign-in; zero means 7 days.
	SessionMax time.Duration
	// LockAfter failed sign-ins of one email lock it; zero means 5.
	LockAfter int
	// LockFor is how long a lock lasts; zero means 15 minutes.
	LockFor time.Duration
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
}

// Accounts manages members, invitations, passwords and sessions.
type Accounts struct {
	o     Options
	dummy string // a hash checked for unknown emails, so they take as long as known ones
}

// New returns an Accounts.
func New(o Options) (*Accounts, error) {
	if o.InvitationTTL <= 0 {
		o.InvitationTTL = 7 * 24 * time.Hour
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 2 * time.Hour
	}
	if o.SessionMax <= 0 {
		o.SessionMax = 7 * 24 * time.Hour
	}
	if o.LockAfter <= 0 {
		o.LockAfter = 5
	}
	if o.LockFor <= 0 {
		o.LockFor = 15 * time.Minute
	}
	o.Clock = clocks.Or(o.Clock)
	if o.Reader == nil {
		o.Reader = o.Client
	}
	dummy, err := HashPassword(ids.Random(20))
	if err != nil {
		return nil, err
	}
	return &Accounts{o: o, dummy: dummy}, nil
}

// SessionIdle is how long an unused session lasts.
func (a *Accounts) SessionIdle() time.Duration { return a.o.SessionIdle }

// SessionMax is how long a session lasts at most.
func (a *Accounts) SessionMax() time.Duration { return a.o.SessionMax }

func (a *Accounts) key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: a.o.Namespace, Name: name}
}

// Organization returns the organization id.
func (a *Accounts) Organization(ctx context.Context, id string) (*tcsv1.Organization, error) {
	if !ids.Valid("org", id) {
		return nil, fmt.Errorf("organization %q: %w", id, ErrNotFound)
	}
	org := &tcsv1.Organization{}
	if err := a.o.Client.Get(ctx, a.key(orgs.ObjectName(id)), org); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("organization %s: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("getting organization %s: %w", id, err)
	}
	if org.Spec.ID != id {
		return nil, fmt.Errorf("organization %s: %w", id, ErrNotFound)
	}
	return org, nil
}

// Membership is an organization a member belongs to, with the role there.
type Membership struct {
	OrganizationID string
	DisplayName    string
	Role           string
}

// Memberships lists the organizations email is a member of, by display name.
func (a *Accounts) Memberships(ctx context.Context, email string) ([]Membership, error) {
	var list tcsv1.OrganizationList
	if err := a.o.Client.List(ctx, &list, client.InNamespace(a.o.Namespace)); err != nil {
		return nil, fmt.Errorf("listing organizations: %w", err)
	}
	var out []Membership
	for _, org := range list.Items {
		if m := memberOf(&org, email); m != nil {
			out = append(out, Membership{OrganizationID: org.Spec.ID, DisplayName: org.Spec.DisplayName, Role: roleOf(m)})
		}
	}
	slices.SortFunc(out, func(x, y Membership) int {
		return strings.Compare(x.DisplayName+x.OrganizationID, y.DisplayName+y.OrganizationID)
	})
	return out, nil
}

// Role returns the role of email in organization orgID, or ErrNotFound when email is not a
// member (or the organization does not exist).
func (a *Accounts) Role(ctx context.Context, orgID, email string) (string, error) {
	org, err := a.Organization(ctx, orgID)
	if err != nil {
		return "", err
	}
	m := memberOf(org, email)
	if m == nil {
		return "", fmt.Errorf("%s in %s: %w", email, orgID, ErrNotFound)
	}
	return roleOf(m), nil
}

// LiveRole is Role read straight from the API server rather than from the cache, which may
// lag behind a removal: for a long-lived stream that must end once its member is removed.
func (a *Accounts) LiveRole(ctx context.Context, orgID, email string) (string, error) {
	if !ids.Valid("org", orgID) {
		return "", fmt.Errorf("organization %q: %w", orgID, ErrNotFound)
	}
	org := &tcsv1.Organization{}
	if err := a.o.Reader.Get(ctx, a.key(orgs.ObjectName(orgID)), org); err != nil {
		if apierrors.IsNotFound(err) {
			return "", fmt.Errorf("organization %s: %w", orgID, ErrNotFound)
		}
		return "", fmt.Errorf("getting organization %s: %w", orgID, err)
	}
	m := memberOf(org, email)
	if org.Spec.ID != orgID || m == nil {
		return "", fmt.Errorf("%s in %s: %w", email, orgID, ErrNotFound)
	}
	return roleOf(m), nil
}

func memberOf(org *tcsv1.Organization, email string) *tcsv1.Member {
	for i := range org.Spec.Members {
		if strings.EqualFold(org.Spec.Members[i].Email, email) {
			return &org.Spec.Members[i]
		}
	}
	return nil
}

func roleOf(m *tcsv1.Member) string {
	if m.Role == "" {
		return RoleMember
	}
	return m.Role
}

// updateMembers applies mutate to the members of organization orgID and writes them.
func (a *Accounts) updateMembers(ctx context.Context, orgID string, mutate func([]tcsv1.Member) ([]tcsv1.Member, error)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		org, err := a.Organization(ctx, orgID)
		if err != nil {
			return err
		}
		members, err := mutate(slices.Clone(org.Spec.Members))
		if err != nil {
			return err
		}
		org.Spec.Members = members
		return a.o.Client.Update(ctx, org)
	})
}

func ownerCount(ms []tcsv1.Member) int {
	n := 0
	for i := range ms {
		if roleOf(&ms[i]) == RoleOwner {
			n++
		}
	}
	return n
}

// SetMember adds email to organization orgID with role, or changes its role; the organization
// must keep an owner.
func (a *Accounts) SetMember(ctx context.Context, orgID, email, role string) error {
	email, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	if err := ValidateRole(role); err != nil {
		return err
	}
	return a.updateMembers(ctx, orgID, func(ms []tcsv1.Member) ([]tcsv1.Member, error) {
		i := slices.IndexFunc(ms, func(m tcsv1.Member) bool { return strings.EqualFold(m.Email, email) })
		if i < 0 {
			return append(ms, tcsv1.Member{Email: email, Role: role}), nil
		}
		before := ownerCount(ms)
		ms[i].Role = role
		if before > 0 && ownerCount(ms) == 0 {
			return nil, ErrLastOwner
		}
		return ms, nil
	})
}

// RemoveMember removes email from organization orgID: from the next request on, its sessions
// reach nothing of that organization, and they end when it was the last one.
func (a *Accounts) RemoveMember(ctx context.Context, orgID, email string) error {
	email, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	err = a.updateMembers(ctx, orgID, func(ms []tcsv1.Member) ([]tcsv1.Member, error) {
		i := slices.IndexFunc(ms, func(m tcsv1.Member) bool { return strings.EqualFold(m.Email, email) })
		if i < 0 {
			return nil, fmt.Errorf("%s in %s: %w", email, orgID, ErrNotFound)
		}
		ms = slices.Delete(ms, i, i+1)
		if ownerCount(ms) == 0 {
			return nil, ErrLastOwner
		}
		return ms, nil
	})
	if err != nil {
		return err
	}
	left, err := a.Memberships(ctx, email)
	if err != nil {
		return err
	}
	if len(left) == 0 {
		return a.endSessions(ctx, email)
	}
	return nil
}

// endSessions deletes every session of email.
func (a *Accounts) endSessions(ctx context.Context, email string) error {
	if err := a.o.Client.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(a.o.Namespace),
		client.MatchingLabels{LabelEmailHash: EmailHash(email)}, client.MatchingFields{"type": string(SecretTypeSession)}); err != nil {
		return fmt.Errorf("ending the sessions of a member: %w", err)
	}
	return nil
}

// Invite makes email a member of organization orgID with role (or changes its role) and
// returns a one-time invitation token, with which the member sets a password. A new
// invitation replaces the earlier ones of the same email and organization: it is how a
// password is reset.
func (a *Accounts) Invite(ctx context.Context, orgID, email, role string) (string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", err
	}
	if err := a.SetMember(ctx, orgID, email, role); err != nil {
		return "", err
	}
	labels := map[string]string{tcsv1.LabelOrganization: orgID, LabelEmailHash: EmailHash(email)}
	if err := a.o.Client.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(a.o.Namespace),
		client.MatchingLabels(labels), client.MatchingFields{"type": string(SecretTypeInvitation)}); err != nil {
		return "", fmt.Errorf("replacing earlier invitations: %w", err)
	}
	token := ids.Random(40)
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: "invite-" + hashHex(token)[:40], Namespace: a.o.Namespace, Labels: labels,
			Annotations: map[string]string{annotationExpiresAt: a.o.Clock.Now().Add(a.o.InvitationTTL).UTC().Format(time.RFC3339)},
		},
		Type: SecretTypeInvitation,
		Data: map[string][]byte{keyEmail: []byte(email), keyOrg: []byte(orgID), keyRole: []byte(role)},
	}
	if err := a.o.Client.Create(ctx, sec); err != nil {
		return "", fmt.Errorf("creating an invitation: %w", err)
	}
	return token, nil
}

// Invitation is what an invitation link offers.
type Invitation struct {
	Email          string
	OrganizationID string
	DisplayName    string
	Role           string
	secret         *corev1.Secret
}

// Invitation returns the pending invitation of token.
func (a *Accounts) Invitation(ctx context.Context, token string) (*Invitation, error) {
	if len(token) < 20 || len(token) > 100 {
		return nil, ErrInvitationGone
	}
	sec := &corev1.Secret{}
	if err := a.o.Reader.Get(ctx, a.key("invite-"+hashHex(token)[:40]), sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrInvitationGone
		}
		return nil, fmt.Errorf("reading an invitation: %w", err)
	}
	exp, err := time.Parse(time.RFC3339, sec.Annotations[annotationExpiresAt])
	if sec.Type != SecretTypeInvitation || err != nil || !a.o.Clock.Now().Before(exp) || sec.DeletionTimestamp != nil {
		return nil, ErrInvitationGone
	}
	inv := &Invitation{Email: string(sec.Data[keyEmail]), OrganizationID: string(sec.Data[keyOrg]), Role: string(sec.Data[keyRole]), secret: sec}
	org, err := a.Organization(ctx, inv.OrganizationID)
	if errors.Is(err, ErrNotFound) || err == nil && memberOf(org, inv.Email) == nil {
		// Removed since the invitation.
		return nil, ErrInvitationGone
	}
	if err != nil {
		return nil, err
	}
	inv.DisplayName = org.Spec.DisplayName
	return inv, nil
}

// Accept uses the invitation of token to set the member's password. The invitation is
// consumed first (deleted with a precondition on its uid, so that exactly one of two
// concurrent uses wins), then the password written.
func (a *Accounts) Accept(ctx context.Context, token, password string) (*Invitation, error) {
	if err := ValidatePassword(password); err != nil {
		return nil, &FieldError{Field: "password", Message: err.Error()}
	}
	inv, err := a.Invitation(ctx, token)
	if err != nil {
		return nil, err
	}
	uid := inv.secret.UID
	if err := a.o.Client.Delete(ctx, inv.secret, client.Preconditions{UID: &uid}); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil, ErrInvitationGone
		}
		return nil, fmt.Errorf("using an invitation: %w", err)
	}
	if err := a.SetPassword(ctx, inv.Email, password); err != nil {
		return nil, err
	}
	return inv, nil
}

func passwordSecretName(email string) string {
	return "member-" + EmailHash(email)
}

// SetPassword stores the argon2id hash of password for email and ends its sessions.
func (a *Accounts) SetPassword(ctx context.Context, email, password string) error {
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	name := passwordSecretName(email)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sec := &corev1.Secret{}
		err := a.o.Reader.Get(ctx, a.key(name), sec)
		if apierrors.IsNotFound(err) {
			sec = &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: a.o.Namespace, Labels: map[string]string{LabelEmailHash: EmailHash(email)}},
				Type:       SecretTypePassword,
				Data:       map[string][]byte{keyEmail: []byte(email), keyPassword: []byte(hash)},
			}
			return a.o.Client.Create(ctx, sec)
		}
		if err != nil {
			return err
		}
		sec.Data = map[string][]byte{keyEmail: []byte(email), keyPassword: []byte(hash)}
		return a.o.Client.Update(ctx, sec)
	})
	if err != nil {
		return fmt.Errorf("storing a password: %w", err)
	}
	return a.endSessions(ctx, email)
}

// failures are the recent failed sign-ins of one email, kept in a Secret so that every replica
// counts them together.
type failures struct {
	n           int
	first       time.Time
	lockedUntil time.Time
}

func signInName(email string) string {
	return "signin-" + hashHex(email)[:40]
}

// over reports whether the failures f no longer count at now: the window after the first one
// and any lock have passed.
func (a *Accounts) over(f failures, now time.Time) bool {
	return now.Sub(f.first) > a.o.LockFor && !now.Before(f.lockedUntil)
}

func failuresOf(sec *corev1.Secret) failures {
	var f failures
	f.n, _ = strconv.Atoi(sec.Annotations[annotationFailures])
	f.first, _ = time.Parse(time.RFC3339, sec.Annotations[annotationFirstFailure])
	f.lockedUntil, _ = time.Parse(time.RFC3339, sec.Annotations[annotationLockedUntil])
	return f
}

// failures returns the failures of email that still count at now.
func (a *Accounts) failures(ctx context.Context, email string, now time.Time) (failures, error) {
	sec := &corev1.Secret{}
	if err := a.o.Reader.Get(ctx, a.key(signInName(email)), sec); err != nil {
		if apierrors.IsNotFound(err) {
			return failures{}, nil
		}
		return failures{}, fmt.Errorf("reading failed sign-ins: %w", err)
	}
	f := failuresOf(sec)
	if a.over(f, now) {
		return failures{}, nil
	}
	return f, nil
}

// recordFailure counts one more failed sign-in of email at now, and locks it at LockAfter.
func (a *Accounts) recordFailure(ctx context.Context, email string, now time.Time) error {
	name := signInName(email)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sec := &corev1.Secret{}
		err := a.o.Reader.Get(ctx, a.key(name), sec)
		create := apierrors.IsNotFound(err)
		if err != nil && !create {
			return err
		}
		f := failuresOf(sec)
		if create || a.over(f, now) {
			f = failures{first: now}
		}
		if now.Before(f.lockedUntil) {
			return nil // a lock runs its course; failures during it do not extend it
		}
		f.n++
		if f.n >= a.o.LockAfter {
			f.lockedUntil = now.Add(a.o.LockFor)
		}
		sec.Name, sec.Namespace, sec.Type = name, a.o.Namespace, SecretTypeSignIn
		sec.Annotations = map[string]string{
			annotationFailures:     strconv.Itoa(f.n),
			annotationFirstFailure: f.first.UTC().Format(time.RFC3339),
		}
		if !f.lockedUntil.IsZero() {
			sec.Annotations[annotationLockedUntil] = f.lockedUntil.UTC().Format(time.RFC3339)
		}
		if !create {
			return a.o.Client.Update(ctx, sec)
		}
		err = a.o.Client.Create(ctx, sec)
		if apierrors.IsAlreadyExists(err) {
			// Another replica counted first: count again on top of it.
			return apierrors.NewConflict(corev1.Resource("secrets"), name, err)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("recording a failed sign-in: %w", err)
	}
	return nil
}

// Delay is how long a sign-in of an email that failed n times in a row waits before it answers:
// nothing for the first two, then growing, so guessing is slow before it is locked.
func Delay(n int) time.Duration {
	if n < 2 {
		return 0
	}
	d := time.Duration(n-1) * 500 * time.Millisecond
	return min(d, 3*time.Second)
}

// SignIn checks email and password and returns a new session. Unknown emails, wrong passwords
// and locked emails fail alike with ErrSignInFailed, after the same work; after LockAfter
// failures in a row an email is locked for LockFor, even with the right password.
func (a *Accounts) SignIn(ctx context.Context, email, password string) (*Session, error) {
	norm, err := NormalizeEmail(email)
	if err != nil {
		norm = strings.ToLower(strings.TrimSpace(email))
	}
	now := a.o.Clock.Now()
	f, ferr := a.failures(ctx, norm, now)
	if ferr != nil {
		return nil, ferr
	}
	locked := now.Before(f.lockedUntil)
	delay := Delay(f.n)
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	hash := a.dummy
	sec := &corev1.Secret{}
	found := false
	if err == nil {
		switch gerr := a.o.Reader.Get(ctx, a.key(passwordSecretName(norm)), sec); {
		case gerr == nil && sec.Type == SecretTypePassword:
			hash, found = string(sec.Data[keyPassword]), true
		case gerr != nil && !apierrors.IsNotFound(gerr):
			return nil, fmt.Errorf("reading a password: %w", gerr)
		}
	}
	ok, herr := CheckPassword(hash, password)
	if herr != nil {
		return nil, fmt.Errorf("checking a password: %w", herr)
	}
	if !found || !ok || locked {
		if err := a.recordFailure(ctx, norm, now); err != nil {
			return nil, err
		}
		return nil, ErrSignInFailed
	}
	if f.n > 0 {
		fs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.o.Namespace, Name: signInName(norm)}}
		if err := a.o.Client.Delete(ctx, fs); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("clearing failed sign-ins: %w", err)
		}
	}
	return a.newSession(ctx, norm)
}

// Session is a signed-in member.
type Session struct {
	// Token is the cookie value; only its hash names the stored session.
	Token string
	Email string
	// CSRF is the session's token that every state-changing form carries.
	CSRF    string
	Created time.Time
}

func sessionName(token string) string {
	return "session-" + hashHex(token)[:48]
}

func (a *Accounts) newSession(ctx context.Context, email string) (*Session, error) {
	s := &Session{Token: ids.Random(43), Email: email, CSRF: ids.Random(32), Created: a.o.Clock.Now()}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: sessionName(s.Token), Namespace: a.o.Namespace,
			Labels: map[string]string{LabelEmailHash: EmailHash(email)},
			Annotations: map[string]string{
				annotationSeenAt:    s.Created.UTC().Format(time.RFC3339),
				annotationCreatedAt: s.Created.UTC().Format(time.RFC3339),
			},
		},
		Type: SecretTypeSession,
		Data: map[string][]byte{keyEmail: []byte(email), keyCSRF: []byte(s.CSRF)},
	}
	if err := a.o.Client.Create(ctx, sec); err != nil {
		return nil, fmt.Errorf("creating a session: %w", err)
	}
	return s, nil
}

// Session returns the live session of token: ErrNoSession when there is none, or it passed
// its idle or absolute expiry. It records use at most once a minute.
func (a *Accounts) Session(ctx context.Context, token string) (*Session, error) {
	if len(token) < 20 || len(token) > 100 {
		return nil, ErrNoSession
	}
	sec := &corev1.Secret{}
	if err := a.o.Reader.Get(ctx, a.key(sessionName(token)), sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrNoSession
		}
		return nil, fmt.Errorf("reading a session: %w", err)
	}
	now := a.o.Clock.Now()
	seen, _ := time.Parse(time.RFC3339, sec.Annotations[annotationSeenAt])
	created, _ := time.Parse(time.RFC3339, sec.Annotations[annotationCreatedAt])
	if sec.Type != SecretTypeSession || sec.DeletionTimestamp != nil || a.expired(sec, now) {
		if sec.Type == SecretTypeSession {
			_ = a.o.Client.Delete(ctx, sec)
		}
		return nil, ErrNoSession
	}
	if now.Sub(seen) >= time.Minute {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, annotationSeenAt, now.UTC().Format(time.RFC3339))
		if err := a.o.Client.Patch(ctx, sec, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("recording a session's use: %w", err)
		}
	}
	return &Session{Token: token, Email: string(sec.Data[keyEmail]), CSRF: string(sec.Data[keyCSRF]), Created: created}, nil
}

// SignOut ends the session of token.
func (a *Accounts) SignOut(ctx context.Context, token string) error {
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.o.Namespace, Name: sessionName(token)}}
	if err := a.o.Client.Delete(ctx, sec); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("ending a session: %w", err)
	}
	return nil
}

// Sweep deletes the sessions, invitations and counts of failed sign-ins that have expired, so
// that those never used again do not pile up; it returns how many it deleted.
func (a *Accounts) Sweep(ctx context.Context) (int, error) {
	now := a.o.Clock.Now()
	n := 0
	for _, typ := range []corev1.SecretType{SecretTypeSession, SecretTypeInvitation, SecretTypeSignIn} {
		var list corev1.SecretList
		if err := a.o.Reader.List(ctx, &list, client.InNamespace(a.o.Namespace), client.MatchingFields{"type": string(typ)}); err != nil {
			return n, fmt.Errorf("listing %s secrets: %w", typ, err)
		}
		for i := range list.Items {
			sec := &list.Items[i]
			if !a.expired(sec, now) {
				continue
			}
			uid := sec.UID
			if err := a.o.Client.Delete(ctx, sec, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return n, fmt.Errorf("deleting expired secret %s: %w", sec.Name, err)
			}
			n++
		}
	}
	return n, nil
}

// expired reports whether the session or invitation in sec is over at now.
func (a *Accounts) expired(sec *corev1.Secret, now time.Time) bool {
	at := func(key string) (time.Time, bool) {
		t, err := time.Parse(time.RFC3339, sec.Annotations[key])
		return t, err == nil
	}
	switch sec.Type {
	case SecretTypeInvitation:
		exp, ok := at(annotationExpiresAt)
		return !ok || !now.Before(exp)
	case SecretTypeSignIn:
		return a.over(failuresOf(sec), now)
	case SecretTypeSession:
		seen, ok1 := at(annotationSeenAt)
		created, ok2 := at(annotationCreatedAt)
		return !ok1 || !ok2 || now.Sub(seen) > a.o.SessionIdle || now.Sub(created) > a.o.SessionMax
	}
	return false
}
