// Package orgs creates organizations and their API keys as Kubernetes objects.
package orgs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apikey"
	"tcs.dev/tcs/internal/domain/ids"
)

// ObjectName returns the Kubernetes name of an object with API id id (org_x → org-x).
func ObjectName(id string) string {
	return tcsv1.TranscriptName(id)
}

// Create creates an organization with a new id; extra labels mark it (for example as a demo).
func Create(ctx context.Context, c client.Client, namespace, displayName string, labels map[string]string) (*tcsv1.Organization, error) {
	id := ids.New("org")
	org := &tcsv1.Organization{
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName(id), Namespace: namespace, Labels: labels},
		Spec:       tcsv1.OrganizationSpec{ID: id, DisplayName: displayName},
	}
	if err := c.Create(ctx, org); err != nil {
		return nil, fmt.Errorf("creating organization %q: %w", displayName, err)
	}
	return org, nil
}

// Key is an API key and what it belongs to.
type Key struct {
	ID             string
	OrganizationID string
	Label          string
	Value          string
	// Created is when the key was created.
	Created time.Time
	// LastUsed is when the API last authenticated a request with the key, to the minute; zero
	// when never.
	LastUsed time.Time
}

// Prefix is the start of the key's value that identifies it to people without revealing it.
func (k *Key) Prefix() string {
	n := len(apikey.Prefix) + 4
	if len(k.Value) < n {
		return k.Value
	}
	return k.Value[:n] + "…"
}

// ErrNotFound is returned for a key that does not exist or belongs to another organization.
var ErrNotFound = errors.New("not found")

// ErrNoOrganization is returned for an empty organization id by the functions that read or
// write the objects of one organization, before they read or write anything.
var ErrNoOrganization = errors.New("no organization given")

// CheckOrganization refuses an empty or malformed organization id (not org_…) with an error that
// is ErrNoOrganization: the one rule of every function of one organization, here and in
// internal/domain/accounts, endpoints and transcripts.
func CheckOrganization(orgID string) error {
	switch {
	case orgID == "":
		return ErrNoOrganization
	case !ids.Valid("org", orgID):
		return fmt.Errorf("%q is not an organization id (org_…): %w", orgID, ErrNoOrganization)
	}
	return nil
}

// MaxLabelLength bounds the label of an API key.
const MaxLabelLength = 100

// ValidateLabel refuses an empty label or one longer than MaxLabelLength characters.
func ValidateLabel(label string) error {
	switch n := utf8.RuneCountInString(strings.TrimSpace(label)); {
	case n == 0:
		return errors.New("label is required: say what the key is for")
	case n > MaxLabelLength:
		return fmt.Errorf("label is longer than %d characters", MaxLabelLength)
	}
	return nil
}

// keySecretName returns the name of the Secret of key id.
func keySecretName(id string) string {
	return "apikey-" + ObjectName(id)
}

// CreateKey creates a new API key with a non-empty label for organization orgID as a Secret;
// an empty orgID is ErrNoOrganization.
func CreateKey(ctx context.Context, c client.Client, namespace, orgID, label string) (*Key, error) {
	if err := CheckOrganization(orgID); err != nil {
		return nil, fmt.Errorf("creating an API key: %w", err)
	}
	if err := ValidateLabel(label); err != nil {
		return nil, err
	}
	label = strings.TrimSpace(label)
	k := &Key{ID: ids.New("key"), OrganizationID: orgID, Label: label, Value: apikey.New()}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      keySecretName(k.ID),
			Namespace: namespace,
			Labels: map[string]string{
				tcsv1.LabelOrganization: orgID,
				tcsv1.LabelAPIKeyID:     k.ID,
				tcsv1.LabelAPIKeyHash:   apikey.LookupHash(k.Value),
			},
			Annotations: map[string]string{tcsv1.AnnotationAPIKeyLabel: label},
		},
		Type: tcsv1.SecretTypeAPIKey,
		Data: map[string][]byte{tcsv1.SecretKeyAPIKey: []byte(k.Value)},
	}
	if err := c.Create(ctx, sec); err != nil {
		return nil, fmt.Errorf("creating an API key for %s: %w", orgID, err)
	}
	k.Created = sec.CreationTimestamp.Time
	return k, nil
}

func keyOf(s *corev1.Secret) Key {
	k := Key{
		ID:             s.Labels[tcsv1.LabelAPIKeyID],
		OrganizationID: s.Labels[tcsv1.LabelOrganization],
		Label:          s.Annotations[tcsv1.AnnotationAPIKeyLabel],
		Value:          string(s.Data[tcsv1.SecretKeyAPIKey]),
		Created:        s.CreationTimestamp.Time,
	}
	if t, err := time.Parse(time.RFC3339, s.Annotations[tcsv1.AnnotationAPIKeyLastUsed]); err == nil {
		k.LastUsed = t
	}
	return k
}

// Keys lists the API keys of organization orgID, oldest first; an empty orgID is
// ErrNoOrganization.
func Keys(ctx context.Context, c client.Reader, namespace, orgID string) ([]Key, error) {
	if err := CheckOrganization(orgID); err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	var secrets corev1.SecretList
	if err := c.List(ctx, &secrets, client.InNamespace(namespace),
		client.MatchingLabels{tcsv1.LabelOrganization: orgID}, client.HasLabels{tcsv1.LabelAPIKeyID}); err != nil {
		return nil, fmt.Errorf("listing the API keys of %s: %w", orgID, err)
	}
	keys := make([]Key, 0, len(secrets.Items))
	for i := range secrets.Items {
		if secrets.Items[i].DeletionTimestamp != nil {
			continue
		}
		keys = append(keys, keyOf(&secrets.Items[i]))
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if !keys[i].Created.Equal(keys[j].Created) {
			return keys[i].Created.Before(keys[j].Created)
		}
		return keys[i].ID < keys[j].ID
	})
	return keys, nil
}

// GetKey returns key id of organization orgID; an empty orgID is ErrNoOrganization (and
// ErrNotFound).
func GetKey(ctx context.Context, c client.Reader, namespace, orgID, id string) (*Key, error) {
	if err := CheckOrganization(orgID); err != nil {
		// No organization has the key, as no organization has that id.
		return nil, fmt.Errorf("API key %s: %w: %w", id, err, ErrNotFound)
	}
	if !ids.Valid("key", id) {
		return nil, fmt.Errorf("%q is not an API key id (key_…): %w", id, ErrNotFound)
	}
	sec := &corev1.Secret{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: keySecretName(id)}, sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("API key %s: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("getting API key %s: %w", id, err)
	}
	if sec.Labels[tcsv1.LabelAPIKeyID] != id || sec.Labels[tcsv1.LabelOrganization] != orgID || sec.DeletionTimestamp != nil {
		return nil, fmt.Errorf("API key %s: %w", id, ErrNotFound)
	}
	k := keyOf(sec)
	return &k, nil
}

// RevokeKey deletes key id of organization orgID: the API refuses it from then on. An empty
// orgID is ErrNoOrganization (and ErrNotFound).
func RevokeKey(ctx context.Context, c client.Client, namespace, orgID, id string) error {
	k, err := GetKey(ctx, c, namespace, orgID, id)
	if err != nil {
		return err
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: keySecretName(k.ID)}}
	if err := c.Delete(ctx, sec); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("revoking API key %s: %w", id, err)
	}
	return nil
}

// LastUsedResolution is how stale the last-used time of a key may be: the API records a use
// at most once per this period per key.
const LastUsedResolution = time.Minute

// NeedsLastUsed reports whether a use of the key in sec at now should be recorded.
func NeedsLastUsed(sec *corev1.Secret, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, sec.Annotations[tcsv1.AnnotationAPIKeyLastUsed])
	return err != nil || now.Sub(t) >= LastUsedResolution
}

// RecordLastUsed sets the last-used time of the key in the Secret named name with a merge patch.
func RecordLastUsed(ctx context.Context, c client.Client, namespace, name string, now time.Time) error {
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, tcsv1.AnnotationAPIKeyLastUsed, now.UTC().Format(time.RFC3339))
	if err := c.Patch(ctx, sec, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("recording the use of API key %s: %w", name, err)
	}
	return nil
}

// LabelDemo marks the demo organizations of `tcs dev`; its value names the demo ("a", "b").
const LabelDemo = "tcs.dev/demo"

// EnsureDemo returns the demo organization named demo and one of its keys, creating either
// when missing, so that a restarted `tcs dev` keeps the same ids and keys.
func EnsureDemo(ctx context.Context, c client.Client, namespace, demo, displayName string) (*Key, error) {
	var list tcsv1.OrganizationList
	if err := c.List(ctx, &list, client.InNamespace(namespace), client.MatchingLabels{LabelDemo: demo}); err != nil {
		return nil, fmt.Errorf("listing demo organizations: %w", err)
	}
	var org *tcsv1.Organization
	if len(list.Items) > 0 {
		org = &list.Items[0]
	} else {
		var err error
		if org, err = Create(ctx, c, namespace, displayName, map[string]string{LabelDemo: demo}); err != nil {
			return nil, err
		}
	}
	keys, err := Keys(ctx, c, namespace, org.Spec.ID)
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 {
		return &keys[0], nil
	}
	return CreateKey(ctx, c, namespace, org.Spec.ID, "demo key")
}

// EnsureNamespace creates namespace name when it does not exist.
func EnsureNamespace(ctx context.Context, c client.Client, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}
