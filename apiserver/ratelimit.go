package apiserver

import (
	"context"
	"fmt"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/platform/ratelimit"
)

// rateClass is a rate-limit class of the spec.
type rateClass string

const (
	classCreate rateClass = "create"
	classRead   rateClass = "read"
)

// IndexOrganizationID is the cache index of organizations by their API id.
const IndexOrganizationID = "tcs.dev/organization-id"

// OrganizationIDIndex extracts the index value of IndexOrganizationID.
func OrganizationIDIndex(obj client.Object) []string {
	if o, ok := obj.(*tcsv1.Organization); ok && o.Spec.ID != "" {
		return []string{o.Spec.ID}
	}
	return nil
}

// orgLimits are the limits of one organization: the spec's, or its overrides.
type orgLimits struct {
	create, read ratelimit.Limit
	sync         int
}

// limitsOf reads the limit overrides of organization org from the cache.
func (s *Server) limitsOf(ctx context.Context, org string) orgLimits {
	l := orgLimits{create: ratelimit.PerMinute(limits.CreatePerMinute), read: ratelimit.PerMinute(limits.ReadPerMinute), sync: s.sync.slots.limit}
	var list tcsv1.OrganizationList
	if err := s.cache.List(ctx, &list, client.InNamespace(s.namespace), client.MatchingFields{IndexOrganizationID: org}); err != nil || len(list.Items) == 0 {
		return l
	}
	if o := list.Items[0].Spec.Limits; o != nil {
		if o.CreatePerMinute != nil {
			l.create = ratelimit.PerMinute(int(*o.CreatePerMinute))
		}
		if o.ReadPerMinute != nil {
			l.read = ratelimit.PerMinute(int(*o.ReadPerMinute))
		}
		if o.SyncConcurrent != nil {
			l.sync = int(*o.SyncConcurrent)
		}
	}
	return l
}

// rateLimited counts a request against its organization's class and answers 429 past the
// limit; every response carries the X-RateLimit headers.
func (s *Server) rateLimited(class rateClass, next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		org := principalFrom(ctx).OrganizationID
		l := s.limitsOf(ctx, org)
		limit := l.read
		if class == classCreate {
			limit = l.create
		}
		res, err := s.limiter.Allow(ctx, org+":"+string(class), limit)
		if err != nil {
			// The limiter's store is down: serve rather than refuse everyone, and say so.
			s.log.Error(err, "rate limiter unavailable; request not counted", "organization", org)
			return next(w, r)
		}
		res.Headers(w.Header())
		if !res.Allowed {
			s.metrics.RateLimited(string(class))
			return &apiError{Status: http.StatusTooManyRequests, Type: ErrRateLimited,
				Message: fmt.Sprintf("Rate limit of %d %s requests per minute exceeded for this organization; retry in %d s.", limit.Rate, class, res.RetryAfterSeconds())}
		}
		return next(w, r)
	}
}
