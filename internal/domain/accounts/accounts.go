// Package accounts holds the dashboard's people: the members of organizations and their
// roles, pending invitations, password accounts (argon2id hashes), password resets and sign-in
// sessions. All of it lives in the cluster (the Organization's spec.members and Secrets), so
// sessions survive restarts and work across replicas. Tokens of links and sessions are stored
// only as hashes.
package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
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
	SecretTypeInvitation corev1.SecretType = "tcs.dev/member-invitation"
	SecretTypeReset      corev1.SecretType = "tcs.dev/password-reset"
	SecretTypeSession    corev1.SecretType = "tcs.dev/session"
	// SecretTypeSignIn is the type of the counts of failed sign-ins that earlier versions kept
	// per guessed email; the sweep deletes those left.
	SecretTypeSignIn corev1.SecretType = "tcs.dev/signin-failures"

	// secretTypeLegacyInvitation is the type of the invitations of earlier versions, whose link
	// set the password of any email: they are never read, and swept.
	secretTypeLegacyInvitation corev1.SecretType = "tcs.dev/invitation"

	// LabelTokenHash holds the hash of an invitation's token (see tokenHash).
	LabelTokenHash = "tcs.dev/token-hash"

	// LabelEmailHash holds the hash of a member's email (see EmailHash).
	LabelEmailHash = "tcs.dev/email-hash"

	keyEmail    = "email"
	keyPassword = "password"
	keyRole     = "role"
	keyOrg      = "organization"
	keyCSRF     = "csrf"
	keyInviter  = "invited-by"

	annotationExpiresAt = "tcs.dev/expires-at"
	annotationSeenAt    = "tcs.dev/seen-at"
	annotationCreatedAt = "tcs.dev/created-at"
	annotationAccepting = "tcs.dev/accepting"

	annotationFailures     = "tcs.dev/failures"
	annotationFirstFailure = "tcs.dev/first-failure"
	annotationLockedUntil  = "tcs.dev/locked-until"
)

// Errors of this package; a caller shows them without telling which one happened when that
// would reveal whether an email exists.
var (
	ErrNotFound         = errors.New("not found")
	ErrSignInFailed     = errors.New("the email or the password is wrong, or there were too many attempts: wait a few minutes and try again")
	ErrInvitationGone   = errors.New("this invitation is not valid: it was used, revoked, expired or replaced; ask an owner of the organization for a new one")
	ErrResetGone        = errors.New("this link is not valid: it was used, expired or replaced; ask for a new one on the sign-in page")
	ErrHasAccount       = errors.New("this email already has a password: sign in with it to accept the invitation")
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
	// InvitationTTL is how long an invitation lasts; zero means 7 days.
	InvitationTTL time.Duration
	// ResetTTL is how long a password-reset link lasts; zero means 1 hour.
	ResetTTL time.Duration
	// SessionIdle ends a session unused this long; zero means 2 hours.
	SessionIdle time.Duration
	// SessionMax ends a session this long after sign-in; zero means 7 days.
	SessionMax time.Duration
	// LockAfter failed sign-ins of one account within LockFor lock it; zero means 5.
	LockAfter int
	// LockFor is how long a lock lasts; zero means 15 minutes.
	LockFor time.Duration
	// HashConcurrency bounds the argon2id computations (sign-ins, new passwords) that run at
	// once; zero means DefaultHashConcurrency. Each holds 19 MiB while it runs.
	HashConcurrency int
	// HashQueue bounds the sign-ins that wait for one of them; beyond it SignIn returns
	// ErrBusy. Zero means DefaultHashQueue.
	HashQueue int
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
}

// Accounts manages members, invitations, passwords and sessions. Nobody sets the password of
// another: a password is set only with a token that reached the owner of the email (an
// invitation of a new account, or a reset), and an invitation of an email that has a password
// waits until that person, signed in, accepts it.
type Accounts struct {
	o      Options
	dummy  string // a hash checked for unknown emails, so they take as long as known ones
	hasher *hasher
	// checks counts the passwords checked against an account's hash.
	checks atomic.Int64
}

// New returns an Accounts.
func New(o Options) (*Accounts, error) {
	if o.InvitationTTL <= 0 {
		o.InvitationTTL = 7 * 24 * time.Hour
	}
	if o.ResetTTL <= 0 {
		o.ResetTTL = time.Hour
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
	if o.HashConcurrency <= 0 {
		o.HashConcurrency = DefaultHashConcurrency
	}
	if o.HashQueue <= 0 {
		o.HashQueue = DefaultHashQueue
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Reader == nil {
		o.Reader = o.Client
	}
	dummy, err := HashPassword(ids.Random(20))
	if err != nil {
		return nil, err
	}
	return &Accounts{o: o, dummy: dummy, hasher: newHasher(o.HashConcurrency, o.HashQueue)}, nil
}

// InvitationTTL is how long an invitation lasts.
func (a *Accounts) InvitationTTL() time.Duration { return a.o.InvitationTTL }

// ResetTTL is how long a password-reset link lasts.
func (a *Accounts) ResetTTL() time.Duration { return a.o.ResetTTL }

// SessionIdle is how long an unused session lasts.
func (a *Accounts) SessionIdle() time.Duration { return a.o.SessionIdle }

// SessionMax is how long a session lasts at most.
func (a *Accounts) SessionMax() time.Duration { return a.o.SessionMax }

func (a *Accounts) key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: a.o.Namespace, Name: name}
}

// checkOrg refuses an empty organization id before anything is read (orgs.CheckOrganization),
// with an error that is both orgs.ErrNoOrganization and notFound, what the caller answers for an
// organization, or an invitation to one, that it does not find.
func checkOrg(orgID string, notFound error) error {
	if err := orgs.CheckOrganization(orgID); err != nil {
		return fmt.Errorf("%w: %w", err, notFound)
	}
	return nil
}

// Organization returns the organization id; an empty id is orgs.ErrNoOrganization (and
// ErrNotFound).
func (a *Accounts) Organization(ctx context.Context, id string) (*tcsv1.Organization, error) {
	if err := checkOrg(id, ErrNotFound); err != nil {
		return nil, err
	}
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
	return a.memberships(ctx, a.o.Client, email)
}

// memberships lists the organizations email is a member of as r reads them.
func (a *Accounts) memberships(ctx context.Context, r client.Reader, email string) ([]Membership, error) {
	var list tcsv1.OrganizationList
	if err := r.List(ctx, &list, client.InNamespace(a.o.Namespace)); err != nil {
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
	if err := checkOrg(orgID, ErrNotFound); err != nil {
		return "", err
	}
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
	org, err := a.Organization(ctx, orgID)
	if err != nil {
		return err
	}
	_, err = statuspatch.Update(ctx, a.o.Client, a.o.Client, retry.DefaultRetry, org, func() (bool, error) {
		members, err := mutate(slices.Clone(org.Spec.Members))
		if err != nil {
			return false, err
		}
		org.Spec.Members = members
		return true, nil
	})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("organization %s: %w", orgID, ErrNotFound)
	}
	return err
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
	// Whether any organization is left is read from the API server, not the cache: a cache that
	// has not seen this removal yet would keep the sessions of a member who has none left.
	left, err := a.memberships(ctx, a.o.Reader, email)
	if err != nil {
		return err
	}
	if len(left) == 0 {
		return a.endSessions(ctx, email)
	}
	return nil
}

// endSessions deletes every session of email. It lists and deletes them one by one: the
// service's Role grants delete, not deletecollection, on Secrets.
func (a *Accounts) endSessions(ctx context.Context, email string) error {
	var list corev1.SecretList
	if err := a.o.Reader.List(ctx, &list, client.InNamespace(a.o.Namespace),
		client.MatchingLabels{LabelEmailHash: EmailHash(email)}, client.MatchingFields{"type": string(SecretTypeSession)}); err != nil {
		return fmt.Errorf("listing the sessions of a member: %w", err)
	}
	for i := range list.Items {
		if err := a.o.Client.Delete(ctx, &list.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("ending the sessions of a member: %w", err)
		}
	}
	return nil
}

func passwordSecretName(email string) string {
	return "member-" + EmailHash(email)
}

// SetPassword stores the argon2id hash of password for email and ends its sessions.
func (a *Accounts) SetPassword(ctx context.Context, email, password string) error {
	hash, err := a.hasher.hash(ctx, password)
	if err != nil {
		return err
	}
	// A new Secret is made with its labels and type; an existing one gets only its data.
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: passwordSecretName(email), Namespace: a.o.Namespace, Labels: map[string]string{LabelEmailHash: EmailHash(email)}},
		Type:       SecretTypePassword,
	}
	_, err = statuspatch.Update(ctx, a.o.Client, a.o.Reader, retry.DefaultRetry, sec, func() (bool, error) {
		sec.Data = map[string][]byte{keyEmail: []byte(email), keyPassword: []byte(hash)}
		return true, nil
	}, statuspatch.CreateMissing)
	if err != nil {
		return fmt.Errorf("storing a password: %w", err)
	}
	return a.endSessions(ctx, email)
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

// Sweep deletes the sessions, invitations and password resets that have expired, so that those
// never used again do not pile up, and the invitations and counts of failed sign-ins that
// earlier versions kept; it returns how many it deleted.
func (a *Accounts) Sweep(ctx context.Context) (int, error) {
	now := a.o.Clock.Now()
	n := 0
	for _, typ := range []corev1.SecretType{SecretTypeSession, SecretTypeInvitation, SecretTypeReset, SecretTypeSignIn, secretTypeLegacyInvitation} {
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

// expired reports whether the session, invitation or reset in sec is over at now.
func (a *Accounts) expired(sec *corev1.Secret, now time.Time) bool {
	at := func(key string) (time.Time, bool) {
		t, err := time.Parse(time.RFC3339, sec.Annotations[key])
		return t, err == nil
	}
	switch sec.Type {
	case secretTypeLegacyInvitation:
		return true
	case SecretTypeInvitation, SecretTypeReset:
		exp, ok := at(annotationExpiresAt)
		return !ok || !now.Before(exp)
	case SecretTypeSignIn:
		return true // no longer used: failures are counted on the password Secret
	case SecretTypeSession:
		seen, ok1 := at(annotationSeenAt)
		created, ok2 := at(annotationCreatedAt)
		return !ok1 || !ok2 || now.Sub(seen) > a.o.SessionIdle || now.Sub(created) > a.o.SessionMax
	}
	return false
}
