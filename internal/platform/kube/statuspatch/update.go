package statuspatch

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Update is the get–mutate–write of what a status patch does not write: an object's spec or
// metadata, a Secret's data. Each try reads obj through r, by its namespace and name, and
// applies mutate; when mutate reports a change, obj is written with c.Update. The update
// carries the resourceVersion read, so it never overwrites a change it did not see: after a
// conflict the next try reads again and redoes the mutation, up to backoff.Steps tries in all
// (client-go's retry.OnError). mutate returns false when the object as read needs no write, and
// an error to end without writing; a conflict it returns is retried like the write's. Update
// returns whether it wrote, and the last error: a conflict only when every try lost.
//
// With CreateMissing, an object that does not exist is created instead: mutate sees obj as the
// caller gave it, and a creation of the same object by another writer meanwhile is retried
// like a conflict, the next try updating it. Otherwise a missing object ends Update with the
// NotFound error of the read.
//
// Unlike Retry, whose callers hold the object as they have just read it, Update reads it at
// every try, the first too.
func Update[T any, PT interface {
	*T
	client.Object
}](ctx context.Context, c client.Writer, r client.Reader, backoff wait.Backoff, obj PT, mutate func() (bool, error), opts ...Option) (written bool, err error) {
	create := has(opts, CreateMissing)
	given := obj.DeepCopyObject().(PT)
	key := client.ObjectKeyFromObject(obj)
	retriable := func(err error) bool {
		return apierrors.IsConflict(err) || create && apierrors.IsAlreadyExists(err)
	}
	err = retry.OnError(backoff, retriable, func() error {
		written = false
		err := r.Get(ctx, key, obj)
		missing := create && apierrors.IsNotFound(err)
		switch {
		case missing:
			*obj = *given.DeepCopyObject().(PT)
		case err != nil:
			return err
		}
		changed, err := mutate()
		if err != nil || !changed {
			return err
		}
		if missing {
			err = c.Create(ctx, obj)
		} else {
			err = c.Update(ctx, obj)
		}
		if err != nil {
			return err
		}
		written = true
		return nil
	})
	return written, err
}
