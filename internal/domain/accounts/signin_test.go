package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/platform/kube/scheme"
)

// parallel runs f n times at once and returns its errors.
func parallel(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

func TestSignInBounds(t *testing.T) {
	ctx := context.Background()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "signin")
	clk := clocktesting.NewFakeClock(time.Now())
	newAccounts := func(t *testing.T, o Options) *Accounts {
		t.Helper()
		o.Client, o.Namespace, o.Clock = c, ns, clk
		a, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	const owner, password = "ann@example.org", "correct horse battery"
	if err := newAccounts(t, Options{}).SetPassword(ctx, owner, password); err != nil {
		t.Fatal(err)
	}

	t.Run("fifty parallel wrong guesses check the password LockAfter times and lock the account", func(t *testing.T) {
		// Two replicas share the count through the cluster; each lets all 50 wait for a slot.
		a := newAccounts(t, Options{LockAfter: 5, LockFor: time.Minute, HashConcurrency: 4, HashQueue: 64})
		b := newAccounts(t, Options{LockAfter: 5, LockFor: time.Minute, HashConcurrency: 4, HashQueue: 64})
		errs := parallel(50, func(i int) error {
			r := a
			if i%2 == 1 {
				r = b
			}
			_, err := r.SignIn(ctx, owner, "wrong guess "+strconv.Itoa(i))
			return err
		})
		failed := 0
		for _, err := range errs {
			switch {
			case errors.Is(err, ErrSignInFailed):
				failed++
			case errors.Is(err, ErrBusy):
			default:
				t.Fatalf("a wrong guess: %v", err)
			}
		}
		checks := a.checks.Load() + b.checks.Load()
		t.Logf("50 parallel wrong guesses: %d failed, %d busy, %d passwords checked", failed, 50-failed, checks)
		if checks != 5 {
			t.Fatalf("%d passwords were checked, want LockAfter = 5", checks)
		}
		var sec corev1.Secret
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: passwordSecretName(owner)}, &sec); err != nil {
			t.Fatal(err)
		}
		f := failuresOf(&sec)
		if f.n != 5 || !f.lockedUntil.After(clk.Now()) {
			t.Fatalf("the count is %d, locked until %v; want 5 and a lock", f.n, f.lockedUntil)
		}
		if _, err := a.SignIn(ctx, owner, password); !errors.Is(err, ErrSignInFailed) {
			t.Fatalf("the right password while locked: %v", err)
		}
		if n := a.checks.Load() + b.checks.Load(); n != 5 {
			t.Fatalf("a sign-in while locked checked the password (%d checks)", n)
		}
		clk.Step(time.Minute)
		if _, err := b.SignIn(ctx, owner, password); err != nil {
			t.Fatalf("the right password after the lock: %v", err)
		}
	})

	t.Run("a guess that takes the last try locks the account, the right password before it does not", func(t *testing.T) {
		a := newAccounts(t, Options{LockAfter: 3, LockFor: time.Minute})
		for i := range 2 {
			if _, err := a.SignIn(ctx, owner, "wrong"); !errors.Is(err, ErrSignInFailed) {
				t.Fatalf("wrong guess %d: %v", i+1, err)
			}
		}
		if _, err := a.SignIn(ctx, owner, password); err != nil {
			t.Fatalf("the right password at the last try: %v", err)
		}
		for i := range 3 {
			if _, err := a.SignIn(ctx, owner, "wrong"); !errors.Is(err, ErrSignInFailed) {
				t.Fatalf("wrong guess %d after a success: %v", i+1, err)
			}
		}
		if _, err := a.SignIn(ctx, owner, password); !errors.Is(err, ErrSignInFailed) {
			t.Fatalf("the right password after 3 failures: %v", err)
		}
		if n := a.checks.Load(); n != 6 {
			t.Fatalf("%d passwords checked, want 6", n)
		}
		clk.Step(time.Minute)
	})

	t.Run("failures older than LockFor no longer count", func(t *testing.T) {
		a := newAccounts(t, Options{LockAfter: 3, LockFor: time.Minute})
		for range 2 {
			if _, err := a.SignIn(ctx, owner, "wrong"); !errors.Is(err, ErrSignInFailed) {
				t.Fatal(err)
			}
		}
		clk.Step(time.Minute)
		for range 2 {
			if _, err := a.SignIn(ctx, owner, "wrong"); !errors.Is(err, ErrSignInFailed) {
				t.Fatal(err)
			}
		}
		if _, err := a.SignIn(ctx, owner, password); err != nil {
			t.Fatalf("2 failures a window ago and 2 now locked the account: %v", err)
		}
	})

	t.Run("sign-ins of unknown emails create nothing in the cluster", func(t *testing.T) {
		a := newAccounts(t, Options{LockAfter: 3, HashQueue: 64})
		before := secretNames(t, c, ns)
		errs := parallel(40, func(i int) error {
			email := fmt.Sprintf("guess-%d@example.org", i)
			if i%4 == 0 {
				email = "not an email " + strconv.Itoa(i)
			}
			_, err := a.SignIn(ctx, email, "a password")
			return err
		})
		for _, err := range errs {
			if !errors.Is(err, ErrSignInFailed) {
				t.Fatalf("an unknown email: %v", err)
			}
		}
		if after := secretNames(t, c, ns); !slices.Equal(after, before) {
			t.Fatalf("40 unknown emails changed the Secrets from %v to %v", before, after)
		}
		if n := a.checks.Load(); n != 0 {
			t.Fatalf("%d checks against an account's hash for unknown emails", n)
		}
	})

	t.Run("parallel sign-ins run at most HashConcurrency argon2id at once and refuse beyond the queue", func(t *testing.T) {
		a := newAccounts(t, Options{HashConcurrency: 2, HashQueue: 4})
		errs := parallel(32, func(i int) error {
			_, err := a.SignIn(ctx, fmt.Sprintf("flood-%d@example.org", i), "a password")
			return err
		})
		busy := 0
		for _, err := range errs {
			switch {
			case errors.Is(err, ErrBusy):
				busy++
			case !errors.Is(err, ErrSignInFailed):
				t.Fatalf("a sign-in: %v", err)
			}
		}
		peak := a.hasher.peak.Load()
		t.Logf("32 parallel sign-ins: at most %d argon2id at once, %d refused as busy", peak, busy)
		if peak > 2 {
			t.Fatalf("%d argon2id computations ran at once, want at most 2", peak)
		}
		if busy == 0 {
			t.Fatal("no sign-in was refused as busy, with 32 at once for 2 running and 4 waiting")
		}
	})

	t.Run("setting passwords waits for a slot rather than fail", func(t *testing.T) {
		a := newAccounts(t, Options{HashConcurrency: 2, HashQueue: 1})
		errs := parallel(8, func(i int) error {
			return a.SetPassword(ctx, fmt.Sprintf("member-%d@example.org", i), password)
		})
		for _, err := range errs {
			if err != nil {
				t.Fatalf("setting a password: %v", err)
			}
		}
		if peak := a.hasher.peak.Load(); peak > 2 {
			t.Fatalf("%d argon2id computations ran at once, want at most 2", peak)
		}
	})
}
