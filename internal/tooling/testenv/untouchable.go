package testenv

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrTouched is what Untouchable answers every read and write with.
var ErrTouched = errors.New("the client was used")

// Untouchable is a client that counts every read and write and refuses it, for tests that show
// a function refuses its input before it reads or writes anything.
type Untouchable struct {
	client.Client
	// Calls counts the reads and writes asked of it.
	Calls int
}

func (u *Untouchable) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	u.Calls++
	return ErrTouched
}

func (u *Untouchable) List(context.Context, client.ObjectList, ...client.ListOption) error {
	u.Calls++
	return ErrTouched
}

func (u *Untouchable) Create(context.Context, client.Object, ...client.CreateOption) error {
	u.Calls++
	return ErrTouched
}

func (u *Untouchable) Update(context.Context, client.Object, ...client.UpdateOption) error {
	u.Calls++
	return ErrTouched
}

func (u *Untouchable) Delete(context.Context, client.Object, ...client.DeleteOption) error {
	u.Calls++
	return ErrTouched
}
