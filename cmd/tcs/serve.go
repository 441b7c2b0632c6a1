package main

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/cobra"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func newServeCommand(use, short string, api, ctrls bool) *cobra.Command {
	o := &serveOptions{api: api, controllers: ctrls}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(o.kubeconfig)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, *o, nil)
		},
	}
	o.addFlags(cmd, ":8080", "/var/lib/tcs/objects", "sqlite:///var/lib/tcs/results.db")
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; empty means in-cluster or $KUBECONFIG")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8081", "address of the metrics endpoint; 0 disables it")
	o.metrics.addFlags(f)
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8082", "address of the manager's health probes")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "elect one active controller among replicas")
	o.leaderElection.addFlags(f)
	return cmd
}

func loadConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		cfg, err := ctrl.GetConfig()
		if err != nil {
			return nil, fmt.Errorf("loading the cluster config: %w", err)
		}
		return cfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	return cfg, nil
}

// serve runs the API and/or the controllers until ctx ends; ready, when not nil, is called
// with the API's address once it answers requests. It builds the manager (manager.go), the
// services the controllers and the API share (services.go), registers the controllers
// (controllers.go) and the API (api.go), and runs the manager.
func serve(ctx context.Context, cfg *rest.Config, o serveOptions, ready func(apiAddr string)) error {
	log := zap.New(zap.Level(zapcore.Level(-o.verbosity)))
	ctrl.SetLogger(log)
	mgr, serving, err := newManager(cfg, o)
	if err != nil {
		return err
	}
	running, err := addStartMarker(mgr, serving, o.api)
	if err != nil {
		return err
	}
	allow, err := parseCIDRs("outbound-allow-cidrs", o.outboundAllow)
	if err != nil {
		return err
	}
	var ln net.Listener
	if o.api {
		if ln, err = net.Listen("tcp", o.listen); err != nil {
			return fmt.Errorf("listening on %s: %w", o.listen, err)
		}
	}
	publicURL := apiPublicURL(o.publicURL, ln)
	svc, closeServices, err := newServices(ctx, mgr, o, allow, publicURL)
	if err != nil {
		return err
	}
	defer closeServices()
	if o.controllers {
		if err := setupControllers(mgr, o, svc, log); err != nil {
			return err
		}
	}
	if o.api {
		closeAPI, err := setupAPI(ctx, mgr, o, svc, apiListener{ln: ln, publicURL: publicURL, serving: serving, ready: ready}, log)
		if err != nil {
			return err
		}
		defer closeAPI()
	}
	return runManager(ctx, mgr, running, log)
}

// apiPublicURL is where clients reach the API: configured, else http:// and the address of ln;
// empty when neither is known (a process without the API serves no uploads).
func apiPublicURL(configured string, ln net.Listener) string {
	if configured == "" && ln != nil {
		return "http://" + ln.Addr().String()
	}
	return configured
}
