package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
)

// Invitation is a pending membership: an organization offers email a role, which takes effect
// only once that person accepts it.
type Invitation struct {
	Email          string
	OrganizationID string
	DisplayName    string
	Role           string
	// InvitedBy is who made the invitation.
	InvitedBy string
	ExpiresAt time.Time
	// HasAccount reports whether email had a password when the invitation was read: then it is
	// accepted only by that person signed in, never with a link.
	HasAccount bool
	secret     *corev1.Secret
}

// tokenLength is the number of random characters of invitation and reset tokens (about 206
// bits); only their hashes are stored.
const tokenLength = 40

// tokenHash is what a token is stored as: the truncated hex SHA-256, which fits a label value.
func tokenHash(token string) string {
	return hashHex(token)[:40]
}

// validToken reports whether token can be one of ours, before anything is read.
func validToken(token string) bool {
	if len(token) != tokenLength {
		return false
	}
	for _, c := range token {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func invitationName(orgID, email string) string {
	return "invitation-" + hashHex(orgID + "\n" + email)[:40]
}

// hasPassword reports whether email has a password.
func (a *Accounts) hasPassword(ctx context.Context, email string) (bool, error) {
	sec := &corev1.Secret{}
	err := a.o.Reader.Get(ctx, a.key(passwordSecretName(email)), sec)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading a password: %w", err)
	}
	return sec.Type == SecretTypePassword, nil
}

// Invite records an invitation of email to organization orgID with role, made by by, which
// replaces an earlier one of the same email and organization. It grants nothing until accepted,
// and touches no password or session. When email has no password yet, it returns a one-time
// token with which the owner of the email sets one and joins (to be sent to that email only);
// otherwise the token is empty and the person accepts while signed in.
func (a *Accounts) Invite(ctx context.Context, orgID, email, role, by string) (*Invitation, string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, "", err
	}
	if err := ValidateRole(role); err != nil {
		return nil, "", err
	}
	org, err := a.Organization(ctx, orgID)
	if err != nil {
		return nil, "", err
	}
	if memberOf(org, email) != nil {
		return nil, "", &FieldError{Field: "email", Message: email + " is already a member; change the role in the list instead"}
	}
	has, err := a.hasPassword(ctx, email)
	if err != nil {
		return nil, "", err
	}
	labels := map[string]string{tcsv1.LabelOrganization: orgID, LabelEmailHash: EmailHash(email)}
	token := ""
	if !has {
		token = ids.Random(tokenLength)
		labels[LabelTokenHash] = tokenHash(token)
	}
	now := a.o.Clock.Now()
	want := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: invitationName(orgID, email), Namespace: a.o.Namespace, Labels: labels,
			Annotations: map[string]string{
				annotationCreatedAt: now.UTC().Format(time.RFC3339),
				annotationExpiresAt: now.Add(a.o.InvitationTTL).UTC().Format(time.RFC3339),
			},
		},
		Type: SecretTypeInvitation,
		Data: map[string][]byte{keyEmail: []byte(email), keyOrg: []byte(orgID), keyRole: []byte(role), keyInviter: []byte(by)},
	}
	sec := want.DeepCopy()
	_, err = statuspatch.Update(ctx, a.o.Client, a.o.Reader, retry.DefaultRetry, sec, func() (bool, error) {
		if sec.Type != SecretTypeInvitation {
			return false, fmt.Errorf("secret %s is a %s, not an invitation", sec.Name, sec.Type)
		}
		sec.Labels, sec.Annotations, sec.Data = want.Labels, want.Annotations, want.Data
		return true, nil
	}, statuspatch.CreateMissing)
	if err != nil {
		return nil, "", fmt.Errorf("recording an invitation: %w", err)
	}
	inv := a.invitationOf(want)
	inv.DisplayName, inv.HasAccount = org.Spec.DisplayName, has
	return inv, token, nil
}

func (a *Accounts) invitationOf(sec *corev1.Secret) *Invitation {
	exp, _ := time.Parse(time.RFC3339, sec.Annotations[annotationExpiresAt])
	return &Invitation{
		Email: string(sec.Data[keyEmail]), OrganizationID: string(sec.Data[keyOrg]), Role: string(sec.Data[keyRole]),
		InvitedBy: string(sec.Data[keyInviter]), ExpiresAt: exp, secret: sec,
	}
}

// live reports whether sec is an invitation still pending at now.
func (a *Accounts) live(sec *corev1.Secret) bool {
	return sec.Type == SecretTypeInvitation && sec.DeletionTimestamp == nil && !a.expired(sec, a.o.Clock.Now())
}

// listInvitations lists the pending invitations matching labels, oldest first.
func (a *Accounts) listInvitations(ctx context.Context, labels client.MatchingLabels) ([]*Invitation, error) {
	var list corev1.SecretList
	if err := a.o.Reader.List(ctx, &list, client.InNamespace(a.o.Namespace), labels,
		client.MatchingFields{"type": string(SecretTypeInvitation)}); err != nil {
		return nil, fmt.Errorf("listing invitations: %w", err)
	}
	var out []*Invitation
	for i := range list.Items {
		if sec := &list.Items[i]; a.live(sec) {
			out = append(out, a.invitationOf(sec))
		}
	}
	slices.SortFunc(out, func(x, y *Invitation) int { return strings.Compare(x.Email+x.OrganizationID, y.Email+y.OrganizationID) })
	return out, nil
}

// Invitations lists the pending invitations of organization orgID, by email; an empty orgID is
// orgs.ErrNoOrganization.
func (a *Accounts) Invitations(ctx context.Context, orgID string) ([]Invitation, error) {
	if err := checkOrg(orgID, ErrNotFound); err != nil {
		return nil, err
	}
	invs, err := a.listInvitations(ctx, client.MatchingLabels{tcsv1.LabelOrganization: orgID})
	if err != nil {
		return nil, err
	}
	out := make([]Invitation, 0, len(invs))
	for _, inv := range invs {
		if inv.OrganizationID == orgID {
			out = append(out, *inv)
		}
	}
	return out, nil
}

// PendingInvitations lists the invitations that email may accept or decline, with the names of
// their organizations.
func (a *Accounts) PendingInvitations(ctx context.Context, email string) ([]Invitation, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	invs, err := a.listInvitations(ctx, client.MatchingLabels{LabelEmailHash: EmailHash(email)})
	if err != nil {
		return nil, err
	}
	var out []Invitation
	for _, inv := range invs {
		if inv.Email != email {
			continue
		}
		org, err := a.Organization(ctx, inv.OrganizationID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		inv.DisplayName, inv.HasAccount = org.Spec.DisplayName, true
		out = append(out, *inv)
	}
	return out, nil
}

// pending returns the pending invitation of email to organization orgID; an empty orgID is
// orgs.ErrNoOrganization (and ErrInvitationGone).
func (a *Accounts) pending(ctx context.Context, orgID, email string) (*Invitation, error) {
	if err := checkOrg(orgID, ErrInvitationGone); err != nil {
		return nil, err
	}
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	sec := &corev1.Secret{}
	if err := a.o.Reader.Get(ctx, a.key(invitationName(orgID, email)), sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrInvitationGone
		}
		return nil, fmt.Errorf("reading an invitation: %w", err)
	}
	inv := a.invitationOf(sec)
	if !a.live(sec) || inv.Email != email || inv.OrganizationID != orgID {
		return nil, ErrInvitationGone
	}
	return inv, nil
}

// deleteInvitation deletes the invitation of inv as it was read, so that it is used once.
func (a *Accounts) deleteInvitation(ctx context.Context, inv *Invitation) error {
	uid := inv.secret.UID
	if err := a.o.Client.Delete(ctx, inv.secret, client.Preconditions{UID: &uid}); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return ErrInvitationGone
		}
		return fmt.Errorf("deleting an invitation: %w", err)
	}
	return nil
}

// RevokeInvitation deletes the pending invitation of email to organization orgID: its link, if
// it had one, stops working at once.
func (a *Accounts) RevokeInvitation(ctx context.Context, orgID, email string) (*Invitation, error) {
	inv, err := a.pending(ctx, orgID, email)
	if err != nil {
		return nil, err
	}
	return inv, a.deleteInvitation(ctx, inv)
}

// DeclineInvitation deletes the pending invitation of email to organization orgID, on behalf of
// the signed-in email.
func (a *Accounts) DeclineInvitation(ctx context.Context, orgID, email string) (*Invitation, error) {
	return a.RevokeInvitation(ctx, orgID, email)
}

// join makes email a member of organization orgID with role, unless it already is one (then its
// role stays): accepting twice, or after a crash, changes nothing more.
func (a *Accounts) join(ctx context.Context, orgID, email, role string) error {
	return a.updateMembers(ctx, orgID, func(ms []tcsv1.Member) ([]tcsv1.Member, error) {
		if slices.ContainsFunc(ms, func(m tcsv1.Member) bool { return strings.EqualFold(m.Email, email) }) {
			return ms, nil
		}
		return append(ms, tcsv1.Member{Email: email, Role: role}), nil
	})
}

// AcceptInvitation makes email, which must be the signed-in member's own, a member of
// organization orgID with the role of its pending invitation, and deletes the invitation.
func (a *Accounts) AcceptInvitation(ctx context.Context, orgID, email string) (*Invitation, error) {
	inv, err := a.pending(ctx, orgID, email)
	if err != nil {
		return nil, err
	}
	// The membership first: a crash before the deletion leaves an invitation whose acceptance
	// is done again, to the same effect.
	if err := a.join(ctx, orgID, inv.Email, inv.Role); errors.Is(err, ErrNotFound) {
		return nil, ErrInvitationGone // the organization is gone
	} else if err != nil {
		return nil, err
	}
	if err := a.deleteInvitation(ctx, inv); err != nil && !errors.Is(err, ErrInvitationGone) {
		return nil, err
	}
	return inv, nil
}

// InvitationByToken returns the pending invitation whose link carries token. When its email has
// a password by now, HasAccount is true: the link then sets nothing, and the person accepts
// the invitation signed in.
func (a *Accounts) InvitationByToken(ctx context.Context, token string) (*Invitation, error) {
	if !validToken(token) {
		return nil, ErrInvitationGone
	}
	invs, err := a.listInvitations(ctx, client.MatchingLabels{LabelTokenHash: tokenHash(token)})
	if err != nil {
		return nil, err
	}
	if len(invs) != 1 || invs[0].secret.Annotations[annotationAccepting] != "" {
		return nil, ErrInvitationGone
	}
	inv := invs[0]
	org, err := a.Organization(ctx, inv.OrganizationID)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrInvitationGone
	}
	if err != nil {
		return nil, err
	}
	inv.DisplayName = org.Spec.DisplayName
	if inv.HasAccount, err = a.hasPassword(ctx, inv.Email); err != nil {
		return nil, err
	}
	return inv, nil
}

// AcceptWithPassword uses the invitation link of token, which only the owner of its email
// received, to set that email's first password and make it a member. It fails with
// ErrHasAccount when the email has a password already. The token is consumed first (an update
// on the invitation as it was read, so that exactly one of two concurrent uses wins), then the
// password written, then the membership, then the invitation deleted.
func (a *Accounts) AcceptWithPassword(ctx context.Context, token, password string) (*Invitation, error) {
	if err := ValidatePassword(password); err != nil {
		return nil, &FieldError{Field: "password", Message: err.Error()}
	}
	inv, err := a.InvitationByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if inv.HasAccount {
		return nil, ErrHasAccount
	}
	sec := inv.secret.DeepCopy()
	delete(sec.Labels, LabelTokenHash)
	sec.Annotations[annotationAccepting] = a.o.Clock.Now().UTC().Format(time.RFC3339)
	if err := a.o.Client.Update(ctx, sec); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil, ErrInvitationGone
		}
		return nil, fmt.Errorf("using an invitation: %w", err)
	}
	inv.secret = sec
	if err := a.SetPassword(ctx, inv.Email, password); err != nil {
		return nil, err
	}
	if err := a.join(ctx, inv.OrganizationID, inv.Email, inv.Role); err != nil {
		return nil, err
	}
	if err := a.deleteInvitation(ctx, inv); err != nil && !errors.Is(err, ErrInvitationGone) {
		return nil, err
	}
	return inv, nil
}
