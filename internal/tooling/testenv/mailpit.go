package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // the htpasswd form mailpit reads, for a test password
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// mailpitBinary returns the mailpit of TCS_MAILPIT, else the one hack/mailpit.sh linked into
// bin/; it fails t, never skips, when there is none.
func mailpitBinary(t testing.TB) string {
	t.Helper()
	bin, err := Tool("TCS_MAILPIT", "mailpit", "mailpit")
	if err != nil {
		t.Fatalf("mailpit, the SMTP server of the email tests: %v", err)
	}
	return bin
}

// Mailpit is a running mailpit: a real SMTP server on loopback that keeps what it receives,
// read back through its HTTP API.
type Mailpit struct {
	// Host and Port are the SMTP server's address.
	Host string
	Port int
	// CAFile is the PEM file of the authority of its STARTTLS certificate (for Host).
	CAFile string
	// CA is that authority.
	CA *x509.CertPool
	// Username and Password are what it accepts, when it was started with WithAuth.
	Username, Password string
	// API is the base URL of its HTTP API.
	API string
}

// MailpitOptions configure StartMailpit.
type MailpitOptions struct {
	// StartTLS makes the server offer STARTTLS and require it before anything is sent.
	StartTLS bool
	// Auth makes the server require a username and password.
	Auth bool
}

// StartMailpit starts a mailpit of its own on free loopback ports; it is stopped when t ends.
// It fails t, never skips, when mailpit is missing.
func StartMailpit(t testing.TB, o MailpitOptions) *Mailpit {
	t.Helper()
	bin := mailpitBinary(t)
	dir := t.TempDir()
	m := &Mailpit{Host: "127.0.0.1"}
	args := []string{"--database", filepath.Join(dir, "mailpit.db"), "--disable-version-check", "--smtp-disable-rdns", "--quiet"}
	if o.StartTLS {
		m.CAFile, m.CA = writeTLS(t, dir, m.Host)
		args = append(args, "--smtp-tls-cert", filepath.Join(dir, "server.crt"), "--smtp-tls-key", filepath.Join(dir, "server.key"), "--smtp-require-starttls")
	}
	if o.Auth {
		m.Username, m.Password = "tcs-mailer", "mail password "+strconv.Itoa(os.Getpid())
		f := filepath.Join(dir, "auth")
		// htpasswd's {SHA} form, which mailpit reads.
		sum := sha1.Sum([]byte(m.Password))
		if err := os.WriteFile(f, []byte(m.Username+":{SHA}"+base64.StdEncoding.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--smtp-auth-file", f)
	} else {
		args = append(args, "--smtp-auth-accept-any")
	}
	if !o.StartTLS {
		args = append(args, "--smtp-auth-allow-insecure")
	}
	var lastErr string
	for attempt := 0; attempt < 5; attempt++ {
		smtpPort, apiPort := freePort(t), freePort(t)
		var out SyncBuffer
		cmd := exec.Command(bin, append(args, "--smtp", net.JoinHostPort(m.Host, strconv.Itoa(smtpPort)), "--listen", net.JoinHostPort(m.Host, strconv.Itoa(apiPort)))...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() {
			_ = cmd.Process.Kill()
			<-exited
		}
		m.Port, m.API = smtpPort, "http://"+net.JoinHostPort(m.Host, strconv.Itoa(apiPort))
		deadline := time.Now().Add(20 * time.Second)
		for {
			res, err := http.Get(m.API + "/api/v1/messages")
			if err == nil {
				res.Body.Close()
			}
			if conn, cerr := net.DialTimeout("tcp", net.JoinHostPort(m.Host, strconv.Itoa(smtpPort)), time.Second); err == nil && res.StatusCode == http.StatusOK && cerr == nil {
				conn.Close()
				t.Cleanup(stop)
				return m
			}
			select {
			case <-exited:
				lastErr = "mailpit exited: " + out.String()
			default:
				if time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				lastErr = "mailpit did not answer within 20 s: " + out.String()
				stop()
			}
			break
		}
	}
	t.Fatalf("starting mailpit: %s", lastErr)
	return nil
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free loopback port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// writeTLS writes a new authority (ca.crt) and a certificate it signed for host (server.crt,
// server.key) into dir.
func writeTLS(t testing.TB, dir, host string) (string, *x509.CertPool) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tcs test mail CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.crt", "CERTIFICATE", caDER)
	write("server.crt", "CERTIFICATE", der)
	write("server.key", "EC PRIVATE KEY", keyDER)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return filepath.Join(dir, "ca.crt"), pool
}

// MailpitMessage is a message mailpit received.
type MailpitMessage struct {
	ID      string
	From    string
	To      []string
	Subject string
	// Text is the decoded plain-text body.
	Text string
	// Raw is the message as received.
	Raw string
}

// Messages returns what the server received for to (everything when to is empty), oldest first.
func (m *Mailpit) Messages(t testing.TB, to string) []MailpitMessage {
	t.Helper()
	var list struct {
		Messages []struct {
			ID string `json:"ID"`
		} `json:"messages"`
	}
	u := m.API + "/api/v1/messages?limit=1000"
	if to != "" {
		u = m.API + "/api/v1/search?limit=1000&query=" + url.QueryEscape("to:"+to)
	}
	m.getJSON(t, u, &list)
	out := make([]MailpitMessage, 0, len(list.Messages))
	for i := len(list.Messages) - 1; i >= 0; i-- { // mailpit lists newest first
		var msg struct {
			ID   string `json:"ID"`
			From struct {
				Address string `json:"Address"`
			} `json:"From"`
			To []struct {
				Address string `json:"Address"`
			} `json:"To"`
			Subject string `json:"Subject"`
			Text    string `json:"Text"`
		}
		m.getJSON(t, m.API+"/api/v1/message/"+list.Messages[i].ID, &msg)
		got := MailpitMessage{ID: msg.ID, From: msg.From.Address, Subject: msg.Subject, Text: msg.Text, Raw: m.get(t, m.API+"/api/v1/message/"+msg.ID+"/raw")}
		for _, a := range msg.To {
			got.To = append(got.To, a.Address)
		}
		out = append(out, got)
	}
	return out
}

// WaitMessages waits until the server received at least n messages for to, and returns them.
func (m *Mailpit) WaitMessages(t testing.TB, to string, n int, timeout time.Duration) []MailpitMessage {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := m.Messages(t, to)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpit received %d messages for %q within %s, want %d", len(got), to, timeout, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *Mailpit) get(t testing.TB, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatalf("reading mailpit: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading mailpit: %v", err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return string(b)
}

func (m *Mailpit) getJSON(t testing.TB, u string, out any) {
	t.Helper()
	if err := json.Unmarshal([]byte(m.get(t, u)), out); err != nil {
		t.Fatalf("GET %s: %v", u, fmt.Errorf("not JSON: %w", err))
	}
}
