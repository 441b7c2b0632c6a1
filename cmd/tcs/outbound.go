package main

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"strings"

	"tcs.dev/tcs/internal/platform/sources"
)

// newOutboundClient returns the SSRF-safe client of all outbound traffic of user-chosen URLs:
// it reaches private addresses only within allow and trusts roots (nil: the system's CAs).
func newOutboundClient(allow []netip.Prefix, roots *x509.CertPool) *http.Client {
	return sources.NewClient(sources.ClientOptions{AllowCIDRs: allow, RootCAs: roots})
}

// parseCIDRs parses the CIDRs of flag.
func parseCIDRs(flag string, cidrs []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// outboundRoots returns the system's certificate pool with the PEM certificates of file added,
// or nil (the system pool) when file is empty.
func outboundRoots(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--outbound-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--outbound-ca-file: %s holds no PEM certificate", file)
	}
	return pool, nil
}
