package mail

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"tcs.dev/tcs/internal/tooling/testenv"
)

const link = "http://127.0.0.1:8080/dashboard/reset#abcdefghijklmnopqrstuvwxyz0123456789abcd"

func TestSMTPDeliversToARealServer(t *testing.T) {
	tlsServer := testenv.StartMailpit(t, testenv.MailpitOptions{StartTLS: true, Auth: true})
	plainServer := testenv.StartMailpit(t, testenv.MailpitOptions{})
	ok := func(s *SMTP) *SMTP { return s }
	startTLS := func() *SMTP {
		return &SMTP{Host: tlsServer.Host, Port: tlsServer.Port, TLS: TLSStartTLS, Username: tlsServer.Username,
			Password: tlsServer.Password, From: "tcs <noreply@tcs.example>", RootCAs: tlsServer.CA, Timeout: 10 * time.Second}
	}
	body := "Someone asked to reset the password of ann@example.org.\n\nSet a new one at\n" + link + "\n\nIt expires in 1 hour.\n"
	for _, tc := range []struct {
		name    string
		smtp    *SMTP
		to      string
		subject string
		// wantErr is part of the error, or empty when the message arrives.
		wantErr string
	}{
		{name: "STARTTLS with a password delivers the text and the link intact", smtp: ok(startTLS()), to: "ann@example.org", subject: "Reset your password — tcs"},
		{name: "in clear to a server on loopback delivers too", smtp: &SMTP{Host: plainServer.Host, Port: plainServer.Port, TLS: TLSNone, From: "noreply@tcs.example"},
			to: "bob@example.org", subject: "Plain"},
		{name: "a wrong password is refused", smtp: func() *SMTP { s := startTLS(); s.Password = "wrong"; return s }(),
			to: "ann@example.org", subject: "x", wantErr: "authenticating"},
		{name: "a certificate of an unknown authority is refused", smtp: func() *SMTP { s := startTLS(); s.RootCAs = nil; return s }(),
			to: "ann@example.org", subject: "x", wantErr: "certificate"},
		{name: "STARTTLS is required when asked for", smtp: &SMTP{Host: plainServer.Host, Port: plainServer.Port, TLS: TLSStartTLS, From: "noreply@tcs.example"},
			to: "ann@example.org", subject: "x", wantErr: "does not offer STARTTLS"},
		{name: "a server that requires STARTTLS takes nothing in clear", smtp: func() *SMTP { s := startTLS(); s.TLS = TLSNone; s.Username = ""; return s }(),
			to: "ann@example.org", subject: "x", wantErr: "refused"},
		{name: "a recipient with a line break is refused before sending", smtp: startTLS(),
			to: "ann@example.org\r\nBcc: eve@example.org", subject: "x", wantErr: "line break"},
		{name: "a subject with a line break is refused before sending", smtp: startTLS(),
			to: "ann@example.org", subject: "x\r\nBcc: eve@example.org", wantErr: "line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tlsServer.Messages(t, "")) + len(plainServer.Messages(t, ""))
			err := tc.smtp.Send(context.Background(), Message{To: tc.to, Subject: tc.subject, Body: body})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				if after := len(tlsServer.Messages(t, "")) + len(plainServer.Messages(t, "")); after != before {
					t.Fatalf("a refused message arrived (%d → %d)", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			server := tlsServer
			if tc.smtp.Port == plainServer.Port {
				server = plainServer
			}
			got := server.WaitMessages(t, tc.to, 1, 5*time.Second)
			m := got[len(got)-1]
			if m.Subject != tc.subject || len(m.To) != 1 || m.To[0] != tc.to || m.From != "noreply@tcs.example" {
				t.Fatalf("received %q to %v from %q", m.Subject, m.To, m.From)
			}
			if strings.TrimSpace(strings.ReplaceAll(m.Text, "\r\n", "\n")) != strings.TrimSpace(body) {
				t.Fatalf("received text %q, want %q", m.Text, body)
			}
			for _, h := range []string{"Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable", "Message-ID: <"} {
				if !strings.Contains(m.Raw, h) {
					t.Errorf("the message lacks %q:\n%s", h, m.Raw)
				}
			}
			t.Logf("%d bytes received by %s:%d", len(m.Raw), server.Host, server.Port)
		})
	}
}

func TestValidateRefusesConfigurationsThatCannotSend(t *testing.T) {
	for _, tc := range []struct {
		name string
		smtp SMTP
	}{
		{"no host", SMTP{Port: 587, From: "a@b.example"}},
		{"no port", SMTP{Host: "mail.example", From: "a@b.example"}},
		{"an unknown TLS mode", SMTP{Host: "mail.example", Port: 587, TLS: "ssl", From: "a@b.example"}},
		{"no sender", SMTP{Host: "mail.example", Port: 587}},
		{"a sender with a line break", SMTP{Host: "mail.example", Port: 587, From: "a@b.example\nBcc: c@d.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.smtp.Validate(); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestLogWritesTheMessageWithItsLink(t *testing.T) {
	var lines []string
	l := Log{Log: funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{})}
	if err := l.Send(context.Background(), Message{To: "ann@example.org", Subject: "Reset", Body: "Set it at\n" + link + "\n"}); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], link) || !strings.Contains(lines[0], "ann@example.org") {
		t.Fatalf("logged %q", lines)
	}
	var s Sender = l
	if errors.Is(s.Send(context.Background(), Message{}), context.Canceled) {
		t.Fatal("unreachable")
	}
}
