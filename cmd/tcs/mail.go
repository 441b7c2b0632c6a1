package main

import (
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"tcs.dev/tcs/internal/platform/mail"
)

// mailOptions configure how the service sends invitations and password resets.
type mailOptions struct {
	host         string
	port         int
	tls          string
	username     string
	passwordFile string
	from         string
	caFile       string
}

func (o *mailOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.host, "smtp-host", os.Getenv("TCS_SMTP_HOST"), "SMTP server that sends invitations and password resets (env TCS_SMTP_HOST; default: none, the emails are written to the log)")
	f.IntVar(&o.port, "smtp-port", 587, "port of the SMTP server")
	f.StringVar(&o.tls, "smtp-tls", envOr("TCS_SMTP_TLS", mail.TLSStartTLS), "TLS of the SMTP connection: "+strings.Join(mail.TLSModes, ", ")+" (env TCS_SMTP_TLS; starttls is required when chosen; none only for a relay on a trusted network)")
	f.StringVar(&o.username, "smtp-username", os.Getenv("TCS_SMTP_USERNAME"), "username of the SMTP server (env TCS_SMTP_USERNAME; default: no authentication)")
	f.StringVar(&o.passwordFile, "smtp-password-file", os.Getenv("TCS_SMTP_PASSWORD_FILE"), "file holding the SMTP password, read at every email, e.g. a mounted Secret (env TCS_SMTP_PASSWORD_FILE)")
	f.StringVar(&o.from, "smtp-from", os.Getenv("TCS_SMTP_FROM"), "sender address of the emails, e.g. \"tcs <noreply@example.org>\" (env TCS_SMTP_FROM; required with --smtp-host)")
	f.StringVar(&o.caFile, "smtp-ca-file", "", "PEM file of certificate authorities the SMTP server's certificate is checked against besides the system's")
}

// sender returns what sends the service's emails: the SMTP server of o, or, without one, log.
func (o *mailOptions) sender(log logr.Logger) (mail.Sender, error) {
	if o.host == "" {
		return mail.Log{Log: log}, nil
	}
	s := &mail.SMTP{Host: o.host, Port: o.port, TLS: o.tls, Username: o.username, PasswordFile: o.passwordFile, From: o.from}
	if o.caFile != "" {
		pem, err := os.ReadFile(o.caFile)
		if err != nil {
			return nil, fmt.Errorf("--smtp-ca-file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--smtp-ca-file: %s holds no PEM certificate", o.caFile)
		}
		s.RootCAs = pool
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("--smtp-*: %w", err)
	}
	if o.passwordFile != "" {
		if _, err := os.Stat(o.passwordFile); err != nil {
			return nil, fmt.Errorf("--smtp-password-file: %w", err)
		}
	}
	return s, nil
}
