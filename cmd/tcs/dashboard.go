package main

import (
	"fmt"
	"net"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"tcs.dev/tcs/apiserver"
	"tcs.dev/tcs/apiserver/dashboard"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/platform/ratelimit"
)

// mountDashboard serves the dashboard on the API's port, its routes under /dashboard/ on the
// API's router, its live progress fed by mgr's transcript watch, its emails sent and its
// sign-ins bounded as o says, and its attempts counted by the API's rate limiter.
func mountDashboard(mgr ctrl.Manager, srv *apiserver.Server, svc *services, o serveOptions, publicURL string, log logr.Logger) error {
	namespace := o.namespace
	acc, err := accounts.New(accounts.Options{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Namespace: namespace, Clock: svc.clock,
		InvitationTTL: o.invitationTTL, HashConcurrency: o.signIn.hashConcurrency})
	if err != nil {
		return err
	}
	sender, err := o.mail.sender(log.WithName("mail"))
	if err != nil {
		return err
	}
	proxies, err := parseCIDRs("trusted-proxy-cidrs", o.signIn.trustedProxies)
	if err != nil {
		return err
	}
	dash, err := dashboard.New(dashboard.Options{
		Namespace:   namespace,
		Client:      mgr.GetClient(),
		Reader:      mgr.GetAPIReader(),
		Cache:       mgr.GetCache(),
		Transcripts: srv.Transcripts(),
		Accounts:    acc,
		Endpoints:   &endpoints.Manager{Client: mgr.GetClient(), Secrets: mgr.GetAPIReader(), Namespace: namespace, AllowCIDRs: svc.allow, Archive: svc.results},
		Payloads:    svc.store,
		Audit:       svc.results,
		PublicURL:   publicURL,
		OpenAPI:     apiserver.OpenAPIDocument(),
		Mail:        sender,
		// A limit of 0 or less reads as the default.
		Limiter:          srv.Limiter(),
		SignInPerAddress: ratelimit.PerMinute(o.signIn.perAddress),
		SignInGlobal:     ratelimit.PerMinute(o.signIn.global),
		TrustedProxies:   proxies,
		Log:              log.WithName("dashboard"),
		Clock:            svc.clock,
		// Transcripts added from the dashboard are made as the API makes them.
		Add: dashboard.AddOptions{Corrector: svc.processor, Files: svc.store, OutboundAllow: svc.allow,
			Resolver: net.DefaultResolver, AIPass: svc.provider != nil, Glossaries: svc.glossaries},
	})
	if err != nil {
		return fmt.Errorf("setting up the dashboard: %w", err)
	}
	srv.Mount(dash.Register)
	if err := mgr.Add(apiRunnable(dash.Start)); err != nil {
		return fmt.Errorf("adding the dashboard's live progress: %w", err)
	}
	return nil
}
