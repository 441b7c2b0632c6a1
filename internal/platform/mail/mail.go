// Package mail sends the service's emails (invitations and password resets) to the people they
// are for: over SMTP when a server is configured, otherwise into the service's log, for the
// operator of a local run to pass on.
package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"tcs.dev/tcs/internal/domain/ids"
)

// Message is a plain-text email to one person.
type Message struct {
	To      string
	Subject string
	Body    string
}

// Sender sends messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// TLS modes of an SMTP connection.
const (
	// TLSStartTLS upgrades the connection with STARTTLS, and fails when the server does not
	// offer it (submission, port 587).
	TLSStartTLS = "starttls"
	// TLSImplicit speaks TLS from the first byte (port 465).
	TLSImplicit = "tls"
	// TLSNone sends in clear: only for a relay on the same host or network.
	TLSNone = "none"
)

// TLSModes lists the TLS modes.
var TLSModes = []string{TLSStartTLS, TLSImplicit, TLSNone}

// SMTP sends messages through an SMTP server.
type SMTP struct {
	// Host and Port are the server's address.
	Host string
	Port int
	// TLS is one of TLSModes; empty means TLSStartTLS.
	TLS string
	// Username and Password authenticate (PLAIN) when Username is set; never over a connection
	// in clear to another host.
	Username string
	Password string
	// PasswordFile, when set, holds the password instead, read at every message so that a
	// rotated Secret takes effect without a restart.
	PasswordFile string
	// From is the sender's address, e.g. "tcs <noreply@example.org>".
	From string
	// RootCAs are the authorities the server's certificate is checked against; nil means the
	// system's.
	RootCAs *x509.CertPool
	// Timeout bounds one message, connection included; zero means 30 seconds.
	Timeout time.Duration
}

// Validate refuses a configuration that cannot send.
func (s *SMTP) Validate() error {
	if s.Host == "" {
		return errors.New("the SMTP host is empty")
	}
	if s.Port <= 0 || s.Port > 65535 {
		return fmt.Errorf("the SMTP port %d is not a port", s.Port)
	}
	switch s.TLS {
	case "", TLSStartTLS, TLSImplicit, TLSNone:
	default:
		return fmt.Errorf("the SMTP TLS mode %q is not one of %s", s.TLS, strings.Join(TLSModes, ", "))
	}
	if _, err := parseAddress(s.From); err != nil {
		return fmt.Errorf("the sender address: %w", err)
	}
	return nil
}

// parseAddress returns the address of a, refusing anything that could add header lines.
func parseAddress(a string) (*mail.Address, error) {
	if strings.ContainsAny(a, "\r\n") {
		return nil, fmt.Errorf("%q holds a line break", a)
	}
	addr, err := mail.ParseAddress(a)
	if err != nil {
		return nil, fmt.Errorf("%q is not an email address: %w", a, err)
	}
	return addr, nil
}

// Send delivers m to the server, which takes it on for delivery.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	if err := s.Validate(); err != nil {
		return err
	}
	password := s.Password
	if s.PasswordFile != "" {
		b, err := os.ReadFile(s.PasswordFile)
		if err != nil {
			return fmt.Errorf("reading the SMTP password: %w", err)
		}
		password = strings.TrimRight(string(b), "\r\n")
	}
	from, _ := parseAddress(s.From)
	to, err := parseAddress(m.To)
	if err != nil {
		return fmt.Errorf("the recipient: %w", err)
	}
	msg, err := compose(from, to, m, time.Now())
	if err != nil {
		return err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addr := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connecting to the SMTP server %s: %w", addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	tlsConfig := &tls.Config{ServerName: s.Host, RootCAs: s.RootCAs, MinVersion: tls.VersionTLS12}
	if s.TLS == TLSImplicit {
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("TLS with the SMTP server %s: %w", addr, err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, s.Host)
	if err != nil {
		return fmt.Errorf("greeting the SMTP server %s: %w", addr, err)
	}
	defer c.Close()
	if s.TLS == "" || s.TLS == TLSStartTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return fmt.Errorf("the SMTP server %s does not offer STARTTLS (use --smtp-tls=tls or, on a trusted network only, none)", addr)
		}
		if err := c.StartTLS(tlsConfig); err != nil {
			return fmt.Errorf("STARTTLS with the SMTP server %s: %w", addr, err)
		}
	}
	if s.Username != "" {
		// PlainAuth refuses to send the password in clear to anything but localhost.
		if err := c.Auth(smtp.PlainAuth("", s.Username, password, s.Host)); err != nil {
			return fmt.Errorf("authenticating to the SMTP server %s: %w", addr, err)
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return fmt.Errorf("the SMTP server %s refused the sender: %w", addr, err)
	}
	if err := c.Rcpt(to.Address); err != nil {
		return fmt.Errorf("the SMTP server %s refused the recipient: %w", addr, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("sending a message to %s: %w", addr, err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("sending a message to %s: %w", addr, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("the SMTP server %s refused the message: %w", addr, err)
	}
	// The message is taken once DATA is acknowledged; a failed QUIT changes nothing of it.
	_ = c.Quit()
	return nil
}

// compose writes m as an RFC 5322 message, its text quoted-printable.
func compose(from, to *mail.Address, m Message, now time.Time) ([]byte, error) {
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("the subject holds a line break")
	}
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from.String())
	header("To", to.String())
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", "<"+ids.Random(24)+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	header("Auto-Submitted", "auto-generated")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	body := strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n")
	if _, err := qp.Write([]byte(body)); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Log writes messages to a log instead of sending them: the service's default without an SMTP
// server, where whoever runs it passes the links on.
type Log struct {
	Log logr.Logger
}

// Send logs m, its text included.
func (l Log) Send(_ context.Context, m Message) error {
	l.Log.Info("email not sent: no SMTP server is configured (--smtp-host); pass it on to its recipient",
		"to", m.To, "subject", m.Subject, "text", m.Body)
	return nil
}
