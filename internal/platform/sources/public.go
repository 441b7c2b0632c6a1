package sources

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"os"
	"syscall"
	"time"
)

// FetchError is a transient failure to get a source from a host: the network, a timeout, a
// resolver having a bad moment. Error keeps the whole cause for the operator's logs, which may
// name the service's own addresses (its resolver, its local end of a connection); PublicMessage
// names only the host of the URL.
type FetchError struct {
	// Host is the host of the URL the request went to.
	Host string
	// Err is the cause.
	Err error
	// public says what happened in words for API clients.
	public string
}

// Error returns the cause, for logs.
func (e *FetchError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *FetchError) Unwrap() error { return e.Err }

// PublicMessage says what happened, naming no address of the service.
func (e *FetchError) PublicMessage() string { return e.public }

// PublicMessage returns what err, an error of this package, says in words for API clients and
// webhook receivers: the message of a *UserError, the public message of a *FetchError, or else
// a generic sentence, so that no internal address or path reaches them.
func PublicMessage(err error) string {
	var ue *UserError
	if errors.As(err, &ue) {
		return ue.Message
	}
	var pm interface{ PublicMessage() string }
	if errors.As(err, &pm) {
		return pm.PublicMessage()
	}
	return "an internal error occurred"
}

// PublicRequestMessage returns what the members of an organization may read about err, the
// failure of a request to rawURL (one of theirs, such as a webhook endpoint) made with the
// client of [NewClient]. It is the rule of url fetches: [PublicMessage] of err classified as
// Fetch classifies it, naming at most the host of rawURL, never an address the host resolved
// to nor one of the service's, so that an endpoint URL cannot be used to probe the cluster's
// names and addresses. Log err itself, for the operator.
func PublicRequestMessage(rawURL string, err error) string {
	if err == nil {
		return ""
	}
	return PublicMessage(classify(rawURL, err))
}

// classify turns an error of a request to rawURL into this package's kinds: a host that does
// not exist, or that resolves to an address tcs never connects to, is the client's problem
// (*UserError, naming only the host); any other failure is a transient *FetchError.
func classify(rawURL string, err error) error {
	if err == nil {
		return nil
	}
	host := ""
	var ue *url.Error
	if errors.As(err, &ue) {
		rawURL = ue.URL // a redirect's target, when the failure was there
	}
	if u, perr := url.Parse(rawURL); perr == nil {
		host = u.Hostname()
	}
	var userErr *UserError
	var opErr *net.OpError
	switch {
	case errors.As(err, &userErr) && errors.As(err, &opErr) && opErr.Op == "dial":
		// The connection check refused the address the host resolved to: say so without it.
		return unprocessable("the host %s resolves to a private or reserved address, which tcs does not connect to", host)
	case userErr != nil:
		return err
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return unprocessable("the host %s does not exist (its name does not resolve)", host)
	}
	fe := &FetchError{Host: host, Err: err}
	switch {
	case dnsErr != nil:
		fe.public = "the name of the host " + host + " could not be resolved for now"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err):
		fe.public = "the host " + host + " did not answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		fe.public = "the host " + host + " refused the connection"
	case errors.Is(err, syscall.ECONNRESET):
		fe.public = "the host " + host + " reset the connection"
	case errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH):
		fe.public = "the host " + host + " cannot be reached"
	case errors.As(err, new(*tls.CertificateVerificationError)):
		fe.public = "the TLS certificate of the host " + host + " is not valid"
	default:
		fe.public = "the request to the host " + host + " failed"
	}
	return fe
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// CheckHost resolves the host of the url source rawURL with resolver (nil means
// net.DefaultResolver) and returns a *UserError of type unprocessable, naming only the host,
// when the name does not exist. Every other outcome returns nil, the fetch deciding then: the
// name resolves, the host is an IP address, or the resolver fails or is slow (which is the
// service's problem, not the client's).
func CheckHost(ctx context.Context, resolver *net.Resolver, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err = resolver.LookupNetIP(ctx, "ip", host)
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return unprocessable("the host %s does not exist (its name does not resolve)", host)
	}
	return nil
}
