package main

import (
	"fmt"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"tcs.dev/tcs/apiserver"
	"tcs.dev/tcs/apiserver/dashboard"
	"tcs.dev/tcs/internal/accounts"
	"tcs.dev/tcs/internal/endpoints"
)

// mountDashboard serves the dashboard on the API's port under /dashboard/, its live progress
// fed by mgr's transcript watch.
func mountDashboard(mgr ctrl.Manager, srv *apiserver.Server, svc *services, namespace, publicURL string, log logr.Logger) error {
	acc, err := accounts.New(accounts.Options{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Namespace: namespace, Clock: svc.clock})
	if err != nil {
		return err
	}
	dash, err := dashboard.New(dashboard.Options{
		Namespace: namespace,
		Client:    mgr.GetClient(),
		Reader:    mgr.GetAPIReader(),
		Cache:     mgr.GetCache(),
		API:       srv,
		Accounts:  acc,
		Endpoints: &endpoints.Manager{Client: mgr.GetClient(), Secrets: mgr.GetAPIReader(), Namespace: namespace, AllowCIDRs: svc.allow, Archive: svc.results},
		Payloads:  svc.store,
		PublicURL: publicURL,
		Log:       log.WithName("dashboard"),
		Clock:     svc.clock,
		Limiter:   srv.Limiter(),
	})
	if err != nil {
		return fmt.Errorf("setting up the dashboard: %w", err)
	}
	srv.Mount(dashboard.Prefix, dash.Handler())
	if err := mgr.Add(apiRunnable(dash.Start)); err != nil {
		return fmt.Errorf("adding the dashboard's live progress: %w", err)
	}
	return nil
}
