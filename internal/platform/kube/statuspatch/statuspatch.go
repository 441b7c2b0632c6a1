// Package statuspatch writes the status of a Kubernetes object as a JSON merge patch of what
// one writer changed since it read the object, so that writers of different status fields do
// not overwrite each other (the model is cluster-api's util/patch). Retry and Update are the
// get–mutate–write of a status and of the rest of an object, with conflicts retried.
//
// A merge patch replaces a list whole. A patch that changes a list, or that a caller marks
// Locked (a counter read and incremented), therefore carries the resourceVersion the writer
// read, and the API server refuses it with a conflict when another writer changed the object
// since: the writer reads again and redoes its change. A patch of fields only one writer owns
// is sent without it and lands whatever else changed meanwhile.
package statuspatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The field managers of the writers of statuses, as the objects' managedFields show them;
// docs/operations.md says which status fields each one writes.
const (
	OwnerAPI          = "tcs-api"
	OwnerTranscript   = "tcs-transcript-controller"
	OwnerAIPass       = "tcs-aipass-controller"
	OwnerArchive      = "tcs-archive-controller"
	OwnerWebhook      = "tcs-webhook-controller"
	OwnerOrganization = "tcs-organization-controller"
	// OwnerEndpoints is the endpoint manager of the dashboard and tcs admin (replays).
	OwnerEndpoints = "tcs-endpoints"
	OwnerAdmin     = "tcs-admin"
)

// Helper holds the state of an object as its writer read it.
type Helper struct {
	before client.Object
	owner  string
}

// New snapshots obj before its writer, the field manager owner, changes its status.
func New(obj client.Object, owner string) *Helper {
	return &Helper{before: obj.DeepCopyObject().(client.Object), owner: owner}
}

// Option tunes a Patch, a Retry or an Update.
type Option int

const (
	// Locked makes the patch of Patch and Retry carry the resourceVersion read, even when it
	// changes no list: for a value computed from the one read, such as a counter.
	Locked Option = iota + 1
	// ReadFirst makes Retry read the object at its first try too, not only after a conflict:
	// for a caller that holds no copy as fresh as the API server's.
	ReadFirst
	// CreateMissing makes Update create the object when it does not exist.
	CreateMissing
	// Replace makes Patch write the whole status (an update of the status subresource at the
	// resourceVersion read, so locked too) instead of a merge patch, whether or not it changed:
	// for a first status of many fields, which kube-apiserver then need not apply to its copy
	// of the object, written by a caller that knows it changed it (Retry's mutate).
	Replace
)

// has reports whether opts holds o.
func has(opts []Option, o Option) bool {
	return slices.Contains(opts, o)
}

// ConditionSyncer is an object whose conditions are derived from the rest of its status
// (a Transcript's from its phase): SyncConditions sets them.
type ConditionSyncer interface {
	SyncConditions()
}

// Sync derives the conditions of obj from its status when obj is a ConditionSyncer. Patch calls
// it before every write; a write of a status that does not go through Patch calls it first, so
// that every written status holds the conditions it implies.
func Sync(obj client.Object) {
	if s, ok := obj.(ConditionSyncer); ok {
		s.SyncConditions()
	}
}

// Patch derives obj's conditions from its status (Sync), sends the changes of obj's status
// since New as a merge patch (or, with Replace, the whole status), and updates obj from the
// answer. It sends no merge patch when the status did not change. A conflict error means
// another writer changed a locked patch's object since it was read.
func (h *Helper) Patch(ctx context.Context, c client.StatusClient, obj client.Object, opts ...Option) error {
	Sync(obj)
	if has(opts, Replace) {
		// Without managed fields in the request, kube-apiserver keeps the object's own and
		// need not read back what it sent.
		obj.SetManagedFields(nil)
		if err := c.Status().Update(ctx, obj, client.FieldOwner(h.owner)); err != nil {
			return fmt.Errorf("writing the status of %s: %w", client.ObjectKeyFromObject(obj), err)
		}
		h.before = obj.DeepCopyObject().(client.Object)
		return nil
	}
	data, err := Diff(h.before, obj, opts...)
	if err != nil || data == nil {
		return err
	}
	if err := c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, data), client.FieldOwner(h.owner)); err != nil {
		return fmt.Errorf("patching the status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	h.before = obj.DeepCopyObject().(client.Object)
	return nil
}

// Diff returns the merge patch that turns the status of before into that of after, with the
// resourceVersion of before when it changes a list or opts has Locked; nil when the status is
// the same.
func Diff(before, after client.Object, opts ...Option) ([]byte, error) {
	from, err := statusOf(before)
	if err != nil {
		return nil, err
	}
	to, err := statusOf(after)
	if err != nil {
		return nil, err
	}
	diff, err := jsonpatch.CreateMergePatch(from, to)
	if err != nil {
		return nil, fmt.Errorf("diffing the status of %s: %w", client.ObjectKeyFromObject(after), err)
	}
	if bytes.Equal(bytes.TrimSpace(diff), []byte("{}")) {
		return nil, nil
	}
	patch := map[string]any{"status": json.RawMessage(diff)}
	locked := has(opts, Locked)
	if !locked {
		if locked, err = changesList(diff); err != nil {
			return nil, err
		}
	}
	if locked {
		patch["metadata"] = map[string]string{"resourceVersion": before.GetResourceVersion()}
	}
	return json.Marshal(patch)
}

// statusOf returns the JSON of obj's status, {} when it has none.
func statusOf(obj client.Object) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	var fields struct {
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	if len(fields.Status) == 0 || string(fields.Status) == "null" {
		return []byte("{}"), nil
	}
	return fields.Status, nil
}

// changesList reports whether the merge patch diff sets a list anywhere.
func changesList(diff []byte) (bool, error) {
	var v any
	if err := json.Unmarshal(diff, &v); err != nil {
		return false, fmt.Errorf("reading a status patch: %w", err)
	}
	return hasList(v), nil
}

func hasList(v any) bool {
	switch v := v.(type) {
	case []any:
		return true
	case map[string]any:
		for _, e := range v {
			if hasList(e) {
				return true
			}
		}
	}
	return false
}

// Retry applies mutate to obj and patches the change of its status as owner, with opts. After
// a conflict it reads obj again through r and applies mutate anew, up to backoff.Steps tries in
// all (client-go's retry.OnError); the first try uses obj as the caller read it, or with
// ReadFirst reads it through r too. mutate returns false when the object as read needs no
// write, which ends Retry with written false. It returns the last error: a conflict only when
// every try lost, or the read's.
//
// It is for a write that must not be lost, because what it records has happened (a delivery
// attempt, a provider's answer, a request's change); reconcilers requeue on a conflict instead
// and redo their work from the newer version.
func Retry(ctx context.Context, c client.Client, r client.Reader, backoff wait.Backoff, obj client.Object, owner string, mutate func() bool, opts ...Option) (written bool, err error) {
	first := !has(opts, ReadFirst)
	err = retry.OnError(backoff, apierrors.IsConflict, func() error {
		if !first {
			if err := r.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return err
			}
		}
		first = false
		written = false
		h := New(obj, owner)
		if !mutate() {
			return nil
		}
		if err := h.Patch(ctx, c, obj, opts...); err != nil {
			return err
		}
		written = true
		return nil
	})
	return written, err
}
