package e2e

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// tokenLink matches a link that carries an invitation or reset token, in any form tcs ever made.
var tokenLink = regexp.MustCompile(`/dashboard/(invitation|reset)[/#]([a-z0-9]{40})`)

// waitLogLink waits for the log line of `tcs dev` with the email of kind ("invitation" or
// "reset") that it wrote, without SMTP, for to, and returns its link.
func waitLogLink(t *testing.T, dev *devProcess, kind, to string) string {
	t.Helper()
	link := regexp.MustCompile(`https?://[^\s"\\]+/dashboard/` + kind + `#[a-z0-9]{40}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		found := ""
		for _, line := range strings.Split(dev.stderr.String(), "\n") {
			if strings.Contains(line, "email not sent") && strings.Contains(line, `"to":"`+to+`"`) {
				if m := link.FindString(line); m != "" {
					found = m
				}
			}
		}
		if found != "" {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s link for %s in the log of tcs dev:\n%s", kind, to, dev.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// webUser is someone using the dashboard with a plain HTTP client: a cookie jar, no script.
type webUser struct {
	t    *testing.T
	dash string
	c    *http.Client
	// seen is every page this user was shown.
	seen []string
}

func newWebUser(t *testing.T, dash string) *webUser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &webUser{t: t, dash: dash, c: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// do sends a request, following redirects, and returns the final status and page.
func (u *webUser) do(method, path string, form url.Values) (int, string) {
	u.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u.dash+strings.TrimPrefix(path, "/dashboard/"), body)
	if err != nil {
		u.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := u.c.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	u.seen = append(u.seen, string(page))
	return res.StatusCode, string(page)
}

func (u *webUser) get(path string) (int, string) {
	u.t.Helper()
	return u.do(http.MethodGet, path, nil)
}

// post sends form, with the CSRF token of the page at from when from is not empty.
func (u *webUser) post(path, from string, form url.Values) (int, string) {
	u.t.Helper()
	if from != "" {
		_, page := u.get(from)
		m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			u.t.Fatalf("%s has no CSRF token:\n%s", from, page)
		}
		form.Set("csrf", m[1])
	}
	return u.do(http.MethodPost, path, form)
}

func (u *webUser) signIn(email, password string) bool {
	u.t.Helper()
	status, page := u.post("signin", "", url.Values{"email": {email}, "password": {password}})
	return status == http.StatusOK && !strings.Contains(page, "Sign-in failed")
}

// passwordForm is what the page of an emailed link posts to set password: the link without its
// fragment, and a form with the token of the fragment.
func passwordForm(t *testing.T, link, password string) (string, url.Values) {
	t.Helper()
	m := tokenLink.FindStringSubmatch(link)
	if m == nil {
		t.Fatalf("%q is not a link with a token", link)
	}
	return link[:strings.Index(link, "#")], url.Values{"token": {m[2]}, "password": {password}, "confirm": {password}}
}

// setPassword uses an emailed link the way its page does: it posts the token of the fragment.
func (u *webUser) setPassword(link, password string) (int, string) {
	u.t.Helper()
	target, form := passwordForm(u.t, link, password)
	return u.post(strings.TrimPrefix(target, u.dash), "", form)
}

// TestAbuseAccountTakeoverByInvitation is the attack that the invitations of earlier versions
// allowed: the owner of organization A invites the email of B's owner into A and tries to set
// its password, by every way the old flow had and a few more. B's password and sessions stay
// untouched, A is shown no link, and B joins A only by accepting, signed in as B. The emails go
// through a real SMTP server (mailpit, with STARTTLS and a password).
func TestAbuseAccountTakeoverByInvitation(t *testing.T) {
	mp := testenv.StartMailpit(t, testenv.MailpitOptions{StartTLS: true, Auth: true})
	passwordFile := filepath.Join(t.TempDir(), "smtp-password")
	if err := os.WriteFile(passwordFile, []byte(mp.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dev := startDev(t, filepath.Join(t.TempDir(), "state"),
		"--smtp-host", mp.Host, "--smtp-port", strconv.Itoa(mp.Port), "--smtp-tls", "starttls", "--smtp-username", mp.Username,
		"--smtp-password-file", passwordFile, "--smtp-from", "tcs <noreply@tcs.test>", "--smtp-ca-file", mp.CAFile)
	dash, orgA, orgB := dev.env["TCS_DASHBOARD_URL"], dev.env["TCS_ORG"], dev.env["TCS_ORG_B"]
	ownerA, ownerB := dev.env["TCS_DEMO_EMAIL"], dev.env["TCS_DEMO_EMAIL_B"]
	const passwordA, passwordB = "the password of A's owner", "the password of B's owner"

	attacker, victim := newWebUser(t, dash), newWebUser(t, dash)
	if status, page := attacker.setPassword(dev.env["TCS_DEMO_INVITE"], passwordA); status != http.StatusOK || !strings.Contains(page, "Your password is set") {
		t.Fatalf("A's owner setting a password: %d\n%s", status, page)
	}
	if status, page := victim.setPassword(dev.env["TCS_DEMO_INVITE_B"], passwordB); status != http.StatusOK || !strings.Contains(page, "Your password is set") {
		t.Fatalf("B's owner setting a password: %d\n%s", status, page)
	}
	if !attacker.signIn(ownerA, passwordA) || !victim.signIn(ownerB, passwordB) {
		t.Fatal("the owners cannot sign in")
	}
	victimUntouched := func(t *testing.T) {
		t.Helper()
		if status, _ := victim.get("o/" + orgB + "/"); status != http.StatusOK {
			t.Fatalf("B's owner's session no longer reaches B: %d", status)
		}
		if !newWebUser(t, dash).signIn(ownerB, passwordB) {
			t.Fatal("B's owner's password no longer works")
		}
	}
	attempts, succeeded := 0, 0
	attempt := func(what string, worked bool) {
		t.Helper()
		attempts++
		if worked {
			succeeded++
			t.Errorf("the attack worked: %s", what)
		}
	}

	t.Run("the invitation of B's owner into A has no link and grants nothing", func(t *testing.T) {
		status, page := attacker.post("o/"+orgA+"/members", "o/"+orgA+"/members", url.Values{"email": {ownerB}, "role": {"owner"}})
		if status != http.StatusOK || !strings.Contains(page, "Invitation emailed to "+ownerB) || !strings.Contains(page, `data-invited="`+ownerB+`"`) {
			t.Fatalf("inviting: %d\n%s", status, page)
		}
		msgs := mp.WaitMessages(t, ownerB, 1, 20*time.Second)
		got := msgs[len(msgs)-1]
		if !strings.Contains(got.Subject, "Demo Church A") || !strings.Contains(got.Text, "Sign in with your own password") || tokenLink.MatchString(got.Text) {
			t.Fatalf("the invitation of an account: %q\n%s", got.Subject, got.Text)
		}
		status, _ = victim.get("o/" + orgA + "/")
		attempt("B's owner reaches A before accepting", status != http.StatusNotFound)
		victimUntouched(t)
	})

	t.Run("every way of the old flow to set B's password fails", func(t *testing.T) {
		// The old link form, with anything as a token.
		for _, path := range []string{"invitation/" + strings.Repeat("a", 40), "invitation/anything"} {
			status, _ := attacker.get(path)
			attempt("GET "+path, status == http.StatusOK)
			status, _ = attacker.do(http.MethodPost, path, url.Values{"password": {"chosen by A's owner"}, "confirm": {"chosen by A's owner"}})
			attempt("POST "+path, status < 400)
		}
		// Made-up tokens on the new forms.
		for _, path := range []string{"invitation", "reset"} {
			status, page := attacker.do(http.MethodPost, path, url.Values{"token": {strings.Repeat("x", 40)}, "password": {"chosen by A's owner"}, "confirm": {"chosen by A's owner"}})
			attempt("POST "+path+" with a made-up token", status < 400 || strings.Contains(page, "password is set"))
		}
		// Inviting again, as another role, replaces the invitation and still shows nothing.
		_, page := attacker.post("o/"+orgA+"/members", "o/"+orgA+"/members", url.Values{"email": {ownerB}, "role": {"member"}})
		attempt("a second invitation shows a link", tokenLink.MatchString(page))
		// A reset asked by A's owner for B's email goes to B's mailbox, and A is told what
		// anyone is told, for an email with or without an account.
		_, known := attacker.post("forgot", "", url.Values{"email": {ownerB}})
		_, unknown := attacker.post("forgot", "", url.Values{"email": {"nobody@nowhere.example"}})
		attempt("the reset answer differs for a known email", known != unknown)
		msgs := mp.WaitMessages(t, ownerB, 3, 20*time.Second)
		reset := ""
		for _, m := range msgs {
			if m.Subject == "Reset your tcs password" {
				reset = tokenLink.FindString(m.Text)
			}
			attempt("a message for B's owner went to someone else too", len(m.To) != 1 || m.To[0] != ownerB)
		}
		if reset == "" {
			t.Fatalf("B's owner got no reset link: %+v", msgs)
		}
		attempt("the nobody email was sent something", len(mp.Messages(t, "nobody@nowhere.example")) > 0)
		// A's own session accepts only A's own invitations.
		status, _ := attacker.post("invitations/accept", "o/"+orgA+"/members", url.Values{"org": {orgA}})
		attempt("A's owner accepting B's invitation", status == http.StatusOK && strings.Contains(attacker.seen[len(attacker.seen)-1], "You joined"))
		attempt("A's owner signing in as B with a password A would have chosen", newWebUser(t, dash).signIn(ownerB, "chosen by A's owner"))
		// Nothing the attacker was shown carries a token, and with SMTP no token is logged.
		for _, page := range attacker.seen {
			attempt("a page shown to A's owner carries a token link", tokenLink.MatchString(page))
		}
		for _, m := range mp.Messages(t, "") {
			if tok := tokenLink.FindStringSubmatch(m.Text); tok != nil {
				attempt("the log of tcs holds a token", strings.Contains(dev.stderr.String(), tok[2]))
			}
		}
		victimUntouched(t)
		t.Logf("the reset link went to %s only: %s…", ownerB, reset[:strings.Index(reset, "#")+5])
	})

	t.Run("B's owner joins A by accepting, signed in, with password and session unchanged", func(t *testing.T) {
		status, page := victim.get("invitations")
		if status != http.StatusOK || !strings.Contains(page, "Demo Church A") {
			t.Fatalf("B's owner's invitations: %d\n%s", status, page)
		}
		status, page = victim.post("invitations/accept", "invitations", url.Values{"org": {orgA}})
		if status != http.StatusOK || !strings.Contains(page, "You joined this organization as member") {
			t.Fatalf("accepting: %d\n%s", status, page)
		}
		victimUntouched(t)
		if status, _ := victim.get("o/" + orgA + "/"); status != http.StatusOK {
			t.Fatalf("B's owner does not reach A after accepting: %d", status)
		}
		// B's owner is a member of A with the role of the last invitation, not its owner.
		if _, page := victim.get("o/" + orgA + "/keys"); strings.Contains(page, `id="label"`) {
			t.Fatal("B's owner got the first invitation's owner role")
		}
		_, audit := attacker.get("o/" + orgA + "/audit")
		for _, want := range []string{"MemberInvited", "InvitationAccepted"} {
			if !strings.Contains(audit, want) {
				t.Errorf("A's audit trail lacks %s", want)
			}
		}
		_, audit = victim.get("o/" + orgB + "/audit")
		if !strings.Contains(audit, "PasswordResetRequested") {
			t.Error("B's audit trail does not record the reset A's owner asked for")
		}
	})

	t.Run("the emailed reset link, in B's owner's hands only, sets the password once and ends the sessions", func(t *testing.T) {
		reset := ""
		for _, m := range mp.Messages(t, ownerB) {
			if m.Subject == "Reset your tcs password" {
				reset = tokenLink.FindString(m.Text)
			}
		}
		const newPassword = "B's owner's new password"
		if status, page := newWebUser(t, dash).setPassword(reset, newPassword); status != http.StatusOK || !strings.Contains(page, "Your password is set") {
			t.Fatalf("using the reset link: %d\n%s", status, page)
		}
		if status, page := newWebUser(t, dash).setPassword(reset, "a second use of the link"); status != http.StatusNotFound || !strings.Contains(page, "not valid") {
			t.Fatalf("a second use of the reset link: %d\n%s", status, page)
		}
		if status, page := victim.get("o/" + orgB + "/"); status != http.StatusOK || !strings.Contains(page, "<h1>Sign in</h1>") {
			t.Fatalf("B's owner's session survived the reset: %d", status)
		}
		if newWebUser(t, dash).signIn(ownerB, passwordB) || !victim.signIn(ownerB, newPassword) {
			t.Fatal("after the reset, the old password works or the new one does not")
		}
		if _, audit := victim.get("o/" + orgB + "/audit"); !strings.Contains(audit, "PasswordResetCompleted") {
			t.Error("B's audit trail does not record the completed reset")
		}
	})

	t.Logf("attack on %s by the owner of A: %d attempts, %d succeeded; links shown to the attacker: %d pages checked; emails: %d to B's owner, %d to A's owner, %d in all",
		ownerB, attempts, succeeded, len(attacker.seen), len(mp.Messages(t, ownerB)), len(mp.Messages(t, ownerA)), len(mp.Messages(t, "")))
}
