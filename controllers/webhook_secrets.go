package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// NewSecretVersions returns a reader of the metadata of the Secrets in namespace ns, from an
// informer of their metadata only (no data) that mgr runs: what WebhookDeliveryReconciler's
// SecretVersions reads a signing Secret's resourceVersion from. The manager's own cache holds
// only the API-key Secrets.
func NewSecretVersions(mgr ctrl.Manager, ns string) (client.Reader, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		return nil, fmt.Errorf("making the cache of Secret versions: %w", err)
	}
	if err := mgr.Add(c); err != nil {
		return nil, fmt.Errorf("adding the cache of Secret versions: %w", err)
	}
	return c, nil
}

// signingSecret is a signing Secret as read at one resourceVersion.
type signingSecret struct {
	version           string
	current, previous string
	rotatedAt         time.Time
}

// secretCache holds the signing Secrets read, by name.
type secretCache struct {
	mu      sync.Mutex
	secrets map[string]signingSecret
}

// get returns the Secret name as read at version.
func (c *secretCache) get(name, version string) (signingSecret, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.secrets[name]
	return s, ok && s.version == version
}

// put keeps s as the Secret name.
func (c *secretCache) put(name string, s signingSecret) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.secrets == nil {
		c.secrets = map[string]signingSecret{}
	}
	c.secrets[name] = s
}

// secrets returns the signing secret of ep and, within 24 hours after a rotation, the previous
// one. The Secret is read again only when its resourceVersion, which SecretVersions watches,
// changed since it was last read (a rotation, say), or without SecretVersions.
func (r *WebhookDeliveryReconciler) secrets(ctx context.Context, ep *tcsv1.WebhookEndpoint) (current, previous string, err error) {
	key := client.ObjectKey{Namespace: ep.Namespace, Name: ep.Spec.SecretName}
	var s signingSecret
	cached := false
	if r.SecretVersions != nil {
		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
		switch err := r.SecretVersions.Get(ctx, key, meta); {
		case err == nil:
			s, cached = r.signing.get(key.String(), meta.ResourceVersion)
		case !apierrors.IsNotFound(err):
			return "", "", fmt.Errorf("reading the version of the signing secret of %s: %w", ep.Name, err)
		}
	}
	if !cached {
		if s, err = r.readSecret(ctx, ep, key); err != nil {
			return "", "", err
		}
		r.signing.put(key.String(), s)
	}
	if r.Clock.Now().Sub(s.rotatedAt) < previousSecretWindow {
		previous = s.previous
	}
	return s.current, previous, nil
}

// readSecret reads the signing Secret of ep, key, from the API server.
func (r *WebhookDeliveryReconciler) readSecret(ctx context.Context, ep *tcsv1.WebhookEndpoint, key client.ObjectKey) (signingSecret, error) {
	sec := &corev1.Secret{}
	if err := r.Reader.Get(ctx, key, sec); err != nil {
		return signingSecret{}, fmt.Errorf("reading the signing secret of %s: %w", ep.Name, err)
	}
	s := signingSecret{version: sec.ResourceVersion, current: string(sec.Data[tcsv1.SecretKeyWebhookSecret]),
		previous: string(sec.Data[tcsv1.SecretKeyWebhookPrevious])}
	if s.current == "" {
		return signingSecret{}, fmt.Errorf("the secret %s of endpoint %s has no %q", sec.Name, ep.Name, tcsv1.SecretKeyWebhookSecret)
	}
	if at, err := time.Parse(time.RFC3339, sec.Annotations[tcsv1.AnnotationRotatedAt]); err == nil {
		s.rotatedAt = at
	}
	return s, nil
}
