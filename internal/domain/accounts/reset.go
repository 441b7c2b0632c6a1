package accounts

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/ids"
)

// resetEvery is how often one email is sent a reset link at most when it asks for them.
const resetEvery = time.Minute

func resetName(token string) string {
	return "reset-" + tokenHash(token)
}

// eligible reports whether email may reset a password: it has one, belongs to an organization
// (members of earlier versions may have none yet) or has a pending invitation.
func (a *Accounts) eligible(ctx context.Context, email string) (bool, error) {
	if has, err := a.hasPassword(ctx, email); err != nil || has {
		return has, err
	}
	ms, err := a.Memberships(ctx, email)
	if err != nil || len(ms) > 0 {
		return len(ms) > 0, err
	}
	invs, err := a.PendingInvitations(ctx, email)
	return len(invs) > 0, err
}

// RequestReset returns a one-time token that sets the password of email, to be sent to that
// email only, and replaces its earlier ones. It returns an empty token, and no error, when email
// may not reset a password (no account) or was sent one less than a minute ago, so that the
// caller answers alike whether or not an account exists.
func (a *Accounts) RequestReset(ctx context.Context, email string) (string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", nil //nolint:nilerr // an unusable email is answered like an unknown one
	}
	return a.reset(ctx, email, true)
}

// IssueReset returns a one-time token that sets the password of email, for a cluster admin to
// pass on; ErrNotFound when email has no account, membership or invitation.
func (a *Accounts) IssueReset(ctx context.Context, email string) (string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", err
	}
	token, err := a.reset(ctx, email, false)
	if err == nil && token == "" {
		return "", fmt.Errorf("%s: %w", email, ErrNotFound)
	}
	return token, err
}

func (a *Accounts) reset(ctx context.Context, email string, throttle bool) (string, error) {
	ok, err := a.eligible(ctx, email)
	if err != nil || !ok {
		return "", err
	}
	now := a.o.Clock.Now()
	var list corev1.SecretList
	if err := a.o.Reader.List(ctx, &list, client.InNamespace(a.o.Namespace), client.MatchingLabels{LabelEmailHash: EmailHash(email)},
		client.MatchingFields{"type": string(SecretTypeReset)}); err != nil {
		return "", fmt.Errorf("listing password resets: %w", err)
	}
	for i := range list.Items {
		sec := &list.Items[i]
		created, err := time.Parse(time.RFC3339, sec.Annotations[annotationCreatedAt])
		if throttle && err == nil && now.Sub(created) < resetEvery && !a.expired(sec, now) {
			return "", nil
		}
	}
	// Only the newest link works.
	for i := range list.Items {
		if err := a.o.Client.Delete(ctx, &list.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("replacing a password reset: %w", err)
		}
	}
	token := ids.Random(tokenLength)
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: resetName(token), Namespace: a.o.Namespace,
			Labels: map[string]string{LabelEmailHash: EmailHash(email)},
			Annotations: map[string]string{
				annotationCreatedAt: now.UTC().Format(time.RFC3339),
				annotationExpiresAt: now.Add(a.o.ResetTTL).UTC().Format(time.RFC3339),
			},
		},
		Type: SecretTypeReset,
		Data: map[string][]byte{keyEmail: []byte(email)},
	}
	if err := a.o.Client.Create(ctx, sec); err != nil {
		return "", fmt.Errorf("recording a password reset: %w", err)
	}
	return token, nil
}

// resetOf returns the live reset of token.
func (a *Accounts) resetOf(ctx context.Context, token string) (*corev1.Secret, error) {
	if !validToken(token) {
		return nil, ErrResetGone
	}
	sec := &corev1.Secret{}
	if err := a.o.Reader.Get(ctx, a.key(resetName(token)), sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrResetGone
		}
		return nil, fmt.Errorf("reading a password reset: %w", err)
	}
	if sec.Type != SecretTypeReset || sec.DeletionTimestamp != nil || a.expired(sec, a.o.Clock.Now()) {
		return nil, ErrResetGone
	}
	return sec, nil
}

// ResetEmail returns the email whose password the reset link of token sets.
func (a *Accounts) ResetEmail(ctx context.Context, token string) (string, error) {
	sec, err := a.resetOf(ctx, token)
	if err != nil {
		return "", err
	}
	return string(sec.Data[keyEmail]), nil
}

// CompleteReset uses the reset link of token to set the password of its email, which ends all
// of that email's sessions, and returns the email. The link is consumed first (deleted with a
// precondition on its uid, so that exactly one of two concurrent uses wins).
func (a *Accounts) CompleteReset(ctx context.Context, token, password string) (string, error) {
	if err := ValidatePassword(password); err != nil {
		return "", &FieldError{Field: "password", Message: err.Error()}
	}
	sec, err := a.resetOf(ctx, token)
	if err != nil {
		return "", err
	}
	uid := sec.UID
	if err := a.o.Client.Delete(ctx, sec, client.Preconditions{UID: &uid}); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return "", ErrResetGone
		}
		return "", fmt.Errorf("using a password reset: %w", err)
	}
	email := string(sec.Data[keyEmail])
	if err := a.SetPassword(ctx, email, password); err != nil {
		return "", err
	}
	return email, nil
}
