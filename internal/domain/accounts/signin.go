package accounts

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// failures are the recent failed sign-ins of one account, kept as annotations of its password
// Secret so that every replica counts them together. An email without an account has none:
// nothing in the cluster is created for a guess, and the rate limits of the caller bound them.
//
// n counts the tries reserved (see reserve), failed or still being checked, since first; at
// LockAfter of them the account is locked until lockedUntil.
type failures struct {
	n           int
	first       time.Time
	lockedUntil time.Time
}

// reserveBackoff is how often a reservation re-reads and retries after another sign-in of
// the same account (on this replica or another) wrote the count first.
func reserveBackoff() wait.Backoff {
	return wait.Backoff{Steps: 8, Duration: 5 * time.Millisecond, Factor: 2, Jitter: 0.5}
}

func failuresOf(sec *corev1.Secret) failures {
	var f failures
	f.n, _ = strconv.Atoi(sec.Annotations[annotationFailures])
	f.first, _ = time.Parse(time.RFC3339Nano, sec.Annotations[annotationFirstFailure])
	f.lockedUntil, _ = time.Parse(time.RFC3339Nano, sec.Annotations[annotationLockedUntil])
	return f
}

// setFailures writes f to the annotations of sec; zero failures remove them.
func setFailures(sec *corev1.Secret, f failures) {
	for _, k := range []string{annotationFailures, annotationFirstFailure, annotationLockedUntil} {
		delete(sec.Annotations, k)
	}
	if f.n == 0 {
		return
	}
	if sec.Annotations == nil {
		sec.Annotations = map[string]string{}
	}
	sec.Annotations[annotationFailures] = strconv.Itoa(f.n)
	sec.Annotations[annotationFirstFailure] = f.first.UTC().Format(time.RFC3339Nano)
	if !f.lockedUntil.IsZero() {
		sec.Annotations[annotationLockedUntil] = f.lockedUntil.UTC().Format(time.RFC3339Nano)
	}
}

// current returns the failures f that still count at now: none once a lock has run its course
// or LockFor has passed since the first of them.
func (a *Accounts) current(f failures, now time.Time) failures {
	if now.Before(f.lockedUntil) {
		return f
	}
	if f.n >= a.o.LockAfter || now.Sub(f.first) >= a.o.LockFor {
		return failures{}
	}
	return f
}

// reserve takes one try at the password of email at now and returns the hash to check it
// against, or "" when there is nothing to check: no account has that email, or it is locked.
//
// The try is counted before the password is checked, by a write of the count that holds only
// if nobody else wrote it since it was read (the resourceVersion of a merge patch); a
// conflict re-reads and tries again. So however many sign-ins of one account run at once,
// on however many replicas, at most LockAfter of them get a try within a lock's window, and
// the one that takes the last try sets the lock. A failed check leaves its try counted; a
// successful one clears the count (clearFailures).
//
// An email without an account, and a locked account, cost the same round trips as a try:
// the write is made with dry run, so that timing does not tell them apart.
func (a *Accounts) reserve(ctx context.Context, email string, now time.Time) (string, *corev1.Secret, error) {
	var hash string
	var reserved *corev1.Secret
	err := retry.OnError(reserveBackoff(), apierrors.IsConflict, func() error {
		hash, reserved = "", nil
		sec := &corev1.Secret{}
		err := a.o.Reader.Get(ctx, a.key(passwordSecretName(email)), sec)
		if apierrors.IsNotFound(err) || err == nil && (sec.Type != SecretTypePassword || sec.DeletionTimestamp != nil) {
			ghost := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: passwordSecretName(email), Namespace: a.o.Namespace},
				Type:       SecretTypePassword,
			}
			setFailures(ghost, failures{n: 1, first: now})
			_ = a.o.Client.Create(ctx, ghost, client.DryRunAll)
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading a password: %w", err)
		}
		f := a.current(failuresOf(sec), now)
		locked := now.Before(f.lockedUntil)
		if !locked {
			if f.n == 0 {
				f.first = now
			}
			f.n++
			if f.n >= a.o.LockAfter {
				f.lockedUntil = now.Add(a.o.LockFor)
			}
		}
		patch := client.MergeFromWithOptions(sec.DeepCopy(), client.MergeFromWithOptimisticLock{})
		setFailures(sec, f)
		if locked {
			// A lock runs its course: tries during it neither count nor extend it.
			_ = a.o.Client.Patch(ctx, sec, patch, client.DryRunAll)
			return nil
		}
		if err := a.o.Client.Patch(ctx, sec, patch); err != nil {
			return err
		}
		hash, reserved = string(sec.Data[keyPassword]), sec
		return nil
	})
	switch {
	case apierrors.IsConflict(err):
		return "", nil, ErrBusy
	case err != nil:
		return "", nil, fmt.Errorf("counting a sign-in: %w", err)
	}
	return hash, reserved, nil
}

// clearFailures removes the count of failures from the password Secret sec of a member who
// just signed in, re-reading it while others write it.
func (a *Accounts) clearFailures(ctx context.Context, sec *corev1.Secret) error {
	err := retry.OnError(reserveBackoff(), apierrors.IsConflict, func() error {
		if failuresOf(sec).n == 0 {
			return nil
		}
		patch := client.MergeFromWithOptions(sec.DeepCopy(), client.MergeFromWithOptimisticLock{})
		setFailures(sec, failures{})
		err := a.o.Client.Patch(ctx, sec, patch)
		if apierrors.IsConflict(err) {
			key := client.ObjectKeyFromObject(sec)
			sec = &corev1.Secret{}
			if gerr := a.o.Reader.Get(ctx, key, sec); gerr != nil {
				return gerr
			}
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("clearing failed sign-ins: %w", err)
	}
	return nil
}

// SignIn checks email and password and returns a new session. Unknown emails, wrong passwords
// and locked accounts fail alike with ErrSignInFailed, after the same work: one argon2id
// computation and the same round trips to the API server. After LockAfter failures of an
// account within LockFor it is locked for LockFor, even with the right password; the count is
// taken before each check (see reserve), so parallel guesses cannot run past it.
//
// The computation waits for one of the process's slots (Options.HashConcurrency); when
// HashQueue sign-ins wait already, SignIn returns ErrBusy without any.
func (a *Accounts) SignIn(ctx context.Context, email, password string) (*Session, error) {
	norm, err := NormalizeEmail(email)
	if err != nil {
		// Not an email, so no account: it is looked up all the same, for the same work.
		norm = strings.ToLower(strings.TrimSpace(email))
	}
	release, err := a.hasher.acquire(ctx, true)
	if err != nil {
		return nil, err
	}
	defer release()
	hash, sec, err := a.reserve(ctx, norm, a.o.Clock.Now())
	if err != nil {
		return nil, err
	}
	if hash == "" {
		if _, err := CheckPassword(a.dummy, password); err != nil {
			return nil, fmt.Errorf("checking a password: %w", err)
		}
		return nil, ErrSignInFailed
	}
	a.checks.Add(1)
	ok, err := CheckPassword(hash, password)
	release()
	if err != nil {
		return nil, fmt.Errorf("checking a password: %w", err)
	}
	if !ok {
		return nil, ErrSignInFailed
	}
	if err := a.clearFailures(ctx, sec); err != nil {
		return nil, err
	}
	return a.newSession(ctx, norm)
}
