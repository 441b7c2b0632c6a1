package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apikey"
	"tcs.dev/tcs/internal/domain/orgs"
)

// IndexAPIKeyHash is the cache index of API-key Secrets by the lookup hash of their key.
const IndexAPIKeyHash = "tcs.dev/api-key-hash"

// APIKeyHashIndex extracts the index value of IndexAPIKeyHash from a Secret.
func APIKeyHashIndex(obj client.Object) []string {
	if h := obj.GetLabels()[tcsv1.LabelAPIKeyHash]; h != "" && obj.GetLabels()[tcsv1.LabelAPIKeyID] != "" {
		return []string{h}
	}
	return nil
}

// SetupIndexes registers the cache indexes the Server reads through.
func SetupIndexes(ctx context.Context, indexer client.FieldIndexer) error {
	if err := indexer.IndexField(ctx, &corev1.Secret{}, IndexAPIKeyHash, APIKeyHashIndex); err != nil {
		return fmt.Errorf("indexing API keys: %w", err)
	}
	if err := indexer.IndexField(ctx, &tcsv1.Transcript{}, IndexTranscriptOrganization, TranscriptOrganizationIndex); err != nil {
		return fmt.Errorf("indexing transcripts: %w", err)
	}
	if err := indexer.IndexField(ctx, &tcsv1.Organization{}, IndexOrganizationID, OrganizationIDIndex); err != nil {
		return fmt.Errorf("indexing organizations: %w", err)
	}
	return nil
}

// Principal is the caller a request was authenticated as.
type Principal struct {
	KeyID          string
	OrganizationID string
	Label          string
}

// principalFrom returns the authenticated caller of a request.
func principalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey).(Principal)
	return p
}

var errUnauthorized = &apiError{Status: http.StatusUnauthorized, Type: ErrUnauthorized,
	Message: "Invalid API key. Send it as 'Authorization: Bearer sk_live_…'."}

// authenticate requires a valid, unexpired API key in the Authorization header.
func (s *Server) authenticate(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.lookupKey(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			var ae *apiError
			if errors.As(err, &ae) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="tcs"`)
			}
			return err
		}
		return next(w, r.WithContext(context.WithValue(r.Context(), principalKey, p)))
	}
}

func (s *Server) lookupKey(ctx context.Context, header string) (Principal, error) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(header), " ")
	if header == "" {
		return Principal{}, &apiError{Status: http.StatusUnauthorized, Type: ErrUnauthorized,
			Message: "No API key provided. Send it as 'Authorization: Bearer sk_live_…'."}
	}
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !apikey.WellFormed(key) {
		return Principal{}, &apiError{Status: http.StatusUnauthorized, Type: ErrUnauthorized,
			Message: "Malformed Authorization header. Send it as 'Authorization: Bearer sk_live_…'."}
	}
	var secrets corev1.SecretList
	if err := s.cache.List(ctx, &secrets, client.InNamespace(s.namespace),
		client.MatchingFields{IndexAPIKeyHash: apikey.LookupHash(key)}); err != nil {
		return Principal{}, fmt.Errorf("looking up the API key: %w", err)
	}
	for i := range secrets.Items {
		sec := &secrets.Items[i]
		if !apikey.Equal(string(sec.Data[tcsv1.SecretKeyAPIKey]), key) {
			continue
		}
		if exp := sec.Annotations[tcsv1.AnnotationAPIKeyExpiresAt]; exp != "" {
			t, err := time.Parse(time.RFC3339, exp)
			if err != nil || !s.clock.Now().Before(t) {
				return Principal{}, &apiError{Status: http.StatusUnauthorized, Type: ErrUnauthorized, Message: "This API key has expired."}
			}
		}
		org := sec.Labels[tcsv1.LabelOrganization]
		if org == "" || sec.DeletionTimestamp != nil {
			break
		}
		s.recordUse(ctx, sec)
		return Principal{KeyID: sec.Labels[tcsv1.LabelAPIKeyID], OrganizationID: org, Label: sec.Annotations[tcsv1.AnnotationAPIKeyLabel]}, nil
	}
	return Principal{}, errUnauthorized
}

// recordUse records, at most once a minute per key, that the key in sec was used: in the
// background, so that no request waits for it.
func (s *Server) recordUse(ctx context.Context, sec *corev1.Secret) {
	now := s.clock.Now()
	if !orgs.NeedsLastUsed(sec, now) {
		return
	}
	if last, ok := s.keyUses.Load(sec.Name); ok && now.Sub(last.(time.Time)) < orgs.LastUsedResolution {
		return
	}
	s.keyUses.Store(sec.Name, now)
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := orgs.RecordLastUsed(ctx, s.client, s.namespace, sec.Name, now); err != nil {
			s.log.Error(err, "recording an API key's last use")
		}
	}()
}
