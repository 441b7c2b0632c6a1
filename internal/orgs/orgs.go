// Package orgs creates organizations and their API keys as Kubernetes objects.
package orgs

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/apikey"
	"tcs.dev/tcs/internal/ids"
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
}

// CreateKey creates a new API key for organization orgID as a Secret.
func CreateKey(ctx context.Context, c client.Client, namespace, orgID, label string) (*Key, error) {
	k := &Key{ID: ids.New("key"), OrganizationID: orgID, Label: label, Value: apikey.New()}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "apikey-" + ObjectName(k.ID),
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
	return k, nil
}

// Keys lists the API keys of organization orgID.
func Keys(ctx context.Context, c client.Reader, namespace, orgID string) ([]Key, error) {
	var secrets corev1.SecretList
	if err := c.List(ctx, &secrets, client.InNamespace(namespace),
		client.MatchingLabels{tcsv1.LabelOrganization: orgID}, client.HasLabels{tcsv1.LabelAPIKeyID}); err != nil {
		return nil, fmt.Errorf("listing the API keys of %s: %w", orgID, err)
	}
	keys := make([]Key, 0, len(secrets.Items))
	for _, s := range secrets.Items {
		keys = append(keys, Key{
			ID:             s.Labels[tcsv1.LabelAPIKeyID],
			OrganizationID: orgID,
			Label:          s.Annotations[tcsv1.AnnotationAPIKeyLabel],
			Value:          string(s.Data[tcsv1.SecretKeyAPIKey]),
		})
	}
	return keys, nil
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
