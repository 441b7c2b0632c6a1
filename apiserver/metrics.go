package apiserver

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"tcs.dev/tcs/internal/platform/metrics"
)

// withMetrics records every request answered by next in the API metrics, labelled with the
// template of the route of router it matches (never the raw path, whose ids are unbounded).
func (s *Server) withMetrics(router *mux.Router, next http.Handler) http.Handler {
	if s.metrics == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			s.metrics.APIRequest(routeTemplate(router, r), r.Method, status, time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// routeTemplate returns the path template of the route of router that r matches, or
// metrics.RouteUnmatched.
func routeTemplate(router *mux.Router, r *http.Request) string {
	var m mux.RouteMatch
	if !router.Match(r, &m) || m.Route == nil {
		return metrics.RouteUnmatched
	}
	tpl, err := m.Route.GetPathTemplate()
	if err != nil {
		return metrics.RouteUnmatched
	}
	return tpl
}
