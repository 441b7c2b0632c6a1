package main

import (
	"crypto/tls"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// metricsOptions configure how the metrics endpoint is served.
type metricsOptions struct {
	// secure serves HTTPS, and only to callers whose token may get /metrics.
	secure bool
	// certDir holds certName and keyName; empty means a self-signed certificate.
	certDir, certName, keyName string
	// http2 allows HTTP/2, off by default against its rapid-reset and stream-cancellation attacks.
	http2 bool
}

func (o *metricsOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.secure, "metrics-secure", true, "serve the metrics over HTTPS, only to callers whose token (TokenReview) may get /metrics (SubjectAccessReview); false serves plain HTTP to anyone")
	f.StringVar(&o.certDir, "metrics-cert-path", "", "directory of the metrics server's certificate and key, reloaded when they change (e.g. from cert-manager); empty means a self-signed certificate")
	f.StringVar(&o.certName, "metrics-cert-name", "tls.crt", "certificate file in --metrics-cert-path")
	f.StringVar(&o.keyName, "metrics-cert-key", "tls.key", "key file in --metrics-cert-path")
	f.BoolVar(&o.http2, "enable-http2", false, "allow HTTP/2 on the metrics server")
}

// serverOptions returns the manager's metrics server options for addr ("0" disables it);
// the certificate watcher, when not nil, must be added to the manager.
func (o *metricsOptions) serverOptions(addr string) (metricsserver.Options, *certwatcher.CertWatcher, error) {
	opts := metricsserver.Options{BindAddress: addr, SecureServing: o.secure}
	if !o.http2 {
		opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	if !o.secure {
		return opts, nil, nil
	}
	opts.FilterProvider = filters.WithAuthenticationAndAuthorization
	if o.certDir == "" {
		return opts, nil, nil
	}
	w, err := certwatcher.New(filepath.Join(o.certDir, o.certName), filepath.Join(o.certDir, o.keyName))
	if err != nil {
		return opts, nil, fmt.Errorf("--metrics-cert-path: %w", err)
	}
	opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.GetCertificate = w.GetCertificate })
	return opts, w, nil
}
