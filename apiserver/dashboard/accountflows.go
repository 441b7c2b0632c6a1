package dashboard

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/platform/mail"
)

// The links that carry a token keep it in the fragment, which browsers never send: it reaches
// no request log, proxy or Referer. The page reads it with its script and posts it.

// InvitationURL is the link, sent to the invited email only, at which a new account sets its
// first password and joins.
func InvitationURL(publicURL, token string) string {
	return strings.TrimSuffix(publicURL, "/") + Prefix + "invitation#" + token
}

// ResetURL is the link, sent to the account's email only, at which it sets a new password.
func ResetURL(publicURL, token string) string {
	return strings.TrimSuffix(publicURL, "/") + Prefix + "reset#" + token
}

// InvitationsURL is the page where a signed-in person accepts or declines invitations.
func InvitationsURL(publicURL string) string {
	return strings.TrimSuffix(publicURL, "/") + Prefix + "invitations"
}

// resetWorkers bounds the password resets being looked up and sent at once.
const resetWorkers = 4

// sendTimeout bounds the sending of one email.
const sendTimeout = time.Minute

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// invitationMessage is the email of inv: with the link of token for a new account, else an
// invitation to sign in and accept.
func (d *Dashboard) invitationMessage(inv *accounts.Invitation, token string) mail.Message {
	org := inv.DisplayName
	if org == "" {
		org = inv.OrganizationID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s invited you to %s (%s) on tcs, the Transcript Cleaning Service, as %s.\n\n", inv.InvitedBy, org, inv.OrganizationID, inv.Role)
	if token != "" {
		fmt.Fprintf(&b, "Choose a password and join at:\n\n%s\n\n", InvitationURL(d.o.PublicURL, token))
		fmt.Fprintf(&b, "The link works once and expires on %s.\n", formatTime(inv.ExpiresAt))
	} else {
		fmt.Fprintf(&b, "Sign in with your own password and accept or decline it at:\n\n%s\n\n", InvitationsURL(d.o.PublicURL))
		fmt.Fprintf(&b, "The invitation expires on %s. It changes nothing of your password or your sessions.\n", formatTime(inv.ExpiresAt))
	}
	b.WriteString("\nIf you did not expect it, ignore this email: nothing happens without you.\n")
	return mail.Message{To: inv.Email, Subject: "You are invited to " + org + " on tcs", Body: b.String()}
}

// resetMessage is the email with the reset link of token.
func (d *Dashboard) resetMessage(email, token string) mail.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Someone, we hope you, asked to reset the password of %s on tcs, the Transcript Cleaning Service.\n\n", email)
	fmt.Fprintf(&b, "Choose a new password at:\n\n%s\n\n", ResetURL(d.o.PublicURL, token))
	fmt.Fprintf(&b, "The link works once and expires in %s; setting a password signs you out everywhere.\n", d.o.Accounts.ResetTTL())
	b.WriteString("\nIf you did not ask for it, ignore this email: your password stays as it is.\n")
	return mail.Message{To: email, Subject: "Reset your tcs password", Body: b.String()}
}

// send sends m and logs a failure.
func (d *Dashboard) send(ctx context.Context, m mail.Message) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancel()
	if err := d.o.Mail.Send(ctx, m); err != nil {
		d.o.Log.Error(err, "sending an email", "subject", m.Subject)
		return err
	}
	return nil
}

// auditAll records an event in every organization email belongs to.
func (d *Dashboard) auditAll(ctx context.Context, email string, reason audit.Action, format string, args ...any) {
	ms, err := d.o.Accounts.Memberships(ctx, email)
	if err != nil {
		d.o.Log.Error(err, "recording an audit event", "reason", reason)
		return
	}
	for _, m := range ms {
		d.auditf(ctx, m.OrganizationID, email, reason, format, args...)
	}
}

// tokenData is the page that reads a token from the link's fragment and posts it.
type tokenData struct {
	Action string
	Intro  string
}

func (d *Dashboard) tokenPage(title, action, intro string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d.render(w, r, http.StatusOK, "token", &view{Title: title, Data: &tokenData{Action: action, Intro: intro}})
	}
}

// gone answers a link that no longer works.
func (d *Dashboard) gone(w http.ResponseWriter, r *http.Request, title string, err error) {
	d.render(w, r, http.StatusNotFound, "error", &view{Title: title, Data: err.Error()})
}

// invitationData is the page of a new account's invitation.
type invitationData struct {
	*accounts.Invitation
	Token string
}

func (d *Dashboard) invitationForm(w http.ResponseWriter, r *http.Request, status int, token string, errs map[string]string) {
	inv, err := d.o.Accounts.InvitationByToken(r.Context(), token)
	switch {
	case errors.Is(err, accounts.ErrInvitationGone):
		d.gone(w, r, "Invitation", err)
		return
	case err != nil:
		d.serverError(w, r, err)
		return
	case inv.HasAccount:
		d.render(w, r, http.StatusOK, "error", &view{Title: "Invitation", Data: accounts.ErrHasAccount.Error() +
			" (sign in, then open Invitations at the top of the page)."})
		return
	}
	d.render(w, r, status, "invitation", &view{Title: "Set your password", Data: &invitationData{Invitation: inv, Token: token}, Errors: errs})
}

func (d *Dashboard) openInvitation(w http.ResponseWriter, r *http.Request) {
	d.invitationForm(w, r, http.StatusOK, strings.TrimSpace(r.PostFormValue("token")), nil)
}

// newPassword reads the form of an emailed link that sets a password: its token, the password,
// and the errors of a confirmation that differs.
func newPassword(r *http.Request) (token, password string, errs map[string]string) {
	token, password = r.PostFormValue("token"), r.PostFormValue("password")
	if password != r.PostFormValue("confirm") {
		errs = map[string]string{"confirm": "The two passwords differ."}
	}
	return token, password, errs
}

func (d *Dashboard) acceptWithPassword(w http.ResponseWriter, r *http.Request) {
	token, password, errs := newPassword(r)
	if errs != nil {
		d.invitationForm(w, r, http.StatusBadRequest, token, errs)
		return
	}
	inv, err := d.o.Accounts.AcceptWithPassword(r.Context(), token, password)
	if errs, ok := fieldErrors(err); ok {
		d.invitationForm(w, r, http.StatusBadRequest, token, errs)
		return
	}
	switch {
	case errors.Is(err, accounts.ErrInvitationGone) || errors.Is(err, accounts.ErrHasAccount):
		d.gone(w, r, "Invitation", err)
		return
	case err != nil:
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), inv.OrganizationID, inv.Email, audit.InvitationAccepted, "%s set a password and accepted the invitation as %q", inv.Email, inv.Role)
	d.redirectWithFlash(w, r, Prefix+"signin?email="+url.QueryEscape(inv.Email), "Your password is set and you joined "+inv.DisplayName+". Sign in with it.")
}

// resetData is the page of a reset link.
type resetData struct {
	Email string
	Token string
}

func (d *Dashboard) resetForm(w http.ResponseWriter, r *http.Request, status int, token string, errs map[string]string) {
	email, err := d.o.Accounts.ResetEmail(r.Context(), token)
	if errors.Is(err, accounts.ErrResetGone) {
		d.gone(w, r, "Set a password", err)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.render(w, r, status, "reset", &view{Title: "Set your password", Data: &resetData{Email: email, Token: token}, Errors: errs})
}

func (d *Dashboard) openReset(w http.ResponseWriter, r *http.Request) {
	d.resetForm(w, r, http.StatusOK, strings.TrimSpace(r.PostFormValue("token")), nil)
}

func (d *Dashboard) completeReset(w http.ResponseWriter, r *http.Request) {
	token, password, errs := newPassword(r)
	if errs != nil {
		d.resetForm(w, r, http.StatusBadRequest, token, errs)
		return
	}
	email, err := d.o.Accounts.CompleteReset(r.Context(), token, password)
	if errs, ok := fieldErrors(err); ok {
		d.resetForm(w, r, http.StatusBadRequest, token, errs)
		return
	}
	switch {
	case errors.Is(err, accounts.ErrResetGone):
		d.gone(w, r, "Set a password", err)
		return
	case err != nil:
		d.serverError(w, r, err)
		return
	}
	d.auditAll(r.Context(), email, audit.PasswordResetCompleted, "%s set a new password with a reset link; their sessions ended", email)
	// The browser's own session, if any, ended with the others.
	d.setCookie(w, "", -1)
	d.redirectWithFlash(w, r, Prefix+"signin?email="+url.QueryEscape(email), "Your password is set. Sign in with it.")
}

func (d *Dashboard) forgotPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "forgot", &view{Title: "Forgot your password?", Form: r.URL.Query()})
}

// forgotAnswer is what a request for a reset link is told, whether or not the email has an
// account.
const forgotAnswer = "If an account exists for that email, we sent it a link to set a new password. It works once and expires soon; check your inbox."

// forgot starts a password reset for the email of the form and answers at once, the same for
// every email: the lookup and the email happen after the answer, so that neither the answer nor
// its timing tells whether the email has an account.
func (d *Dashboard) forgot(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	select {
	case d.resets <- struct{}{}:
		go func(ctx context.Context) {
			defer func() { <-d.resets }()
			ctx, cancel := context.WithTimeout(ctx, sendTimeout)
			defer cancel()
			d.requestReset(ctx, email)
		}(context.WithoutCancel(r.Context()))
	default:
		d.o.Log.Info("too many password resets at once; one was dropped")
	}
	d.redirectWithFlash(w, r, Prefix+"signin", forgotAnswer)
}

func (d *Dashboard) requestReset(ctx context.Context, email string) {
	token, err := d.o.Accounts.RequestReset(ctx, email)
	if err != nil {
		d.o.Log.Error(err, "starting a password reset")
		return
	}
	if token == "" {
		return
	}
	norm, _ := accounts.NormalizeEmail(email)
	d.auditAll(ctx, norm, audit.PasswordResetRequested, "a password reset link was sent to %s", norm)
	_ = d.send(ctx, d.resetMessage(norm, token))
}

// signedIn returns the session of a request that must have one, and answers when it has none
// or, for a change, lacks the session's CSRF token.
func (d *Dashboard) signedIn(w http.ResponseWriter, r *http.Request, changes bool) *accounts.Session {
	s, err := d.session(r)
	if err != nil {
		d.serverError(w, r, err)
		return nil
	}
	if s == nil {
		if changes {
			d.fail(w, r, http.StatusForbidden, "Your session has ended. Sign in again.")
			return nil
		}
		http.Redirect(w, r, Prefix+"signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
		return nil
	}
	if changes && (s.CSRF == "" || subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.CSRF)) != 1) {
		d.fail(w, r, http.StatusForbidden, "This form has expired. Go back, reload the page and try again.")
		return nil
	}
	return s
}

// invitations lists the signed-in person's pending invitations, to accept or decline.
func (d *Dashboard) invitations(w http.ResponseWriter, r *http.Request) {
	s := d.signedIn(w, r, false)
	if s == nil {
		return
	}
	v, err := d.personView(r, s)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	v.Title, v.Flash = "Invitations", d.takeFlash(w, r)
	d.render(w, r, http.StatusOK, "invitations", v)
}

// personView is the view of pages outside an organization.
func (d *Dashboard) personView(r *http.Request, s *accounts.Session) (*view, error) {
	orgs, err := d.o.Accounts.Memberships(r.Context(), s.Email)
	if err != nil {
		return nil, err
	}
	pending, err := d.o.Accounts.PendingInvitations(r.Context(), s.Email)
	if err != nil {
		return nil, err
	}
	return &view{Session: s, Orgs: orgs, Pending: pending}, nil
}

func (d *Dashboard) answerInvitation(accept bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := d.signedIn(w, r, true)
		if s == nil {
			return
		}
		orgID := r.PostFormValue("org")
		var inv *accounts.Invitation
		var err error
		if accept {
			inv, err = d.o.Accounts.AcceptInvitation(r.Context(), orgID, s.Email)
		} else {
			inv, err = d.o.Accounts.DeclineInvitation(r.Context(), orgID, s.Email)
		}
		if errors.Is(err, accounts.ErrInvitationGone) {
			d.redirectWithFlash(w, r, Prefix+"invitations", accounts.ErrInvitationGone.Error())
			return
		}
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		if !accept {
			d.auditf(r.Context(), orgID, s.Email, audit.InvitationDeclined, "%s declined the invitation as %q", s.Email, inv.Role)
			d.redirectWithFlash(w, r, Prefix+"invitations", "Invitation declined.")
			return
		}
		d.auditf(r.Context(), orgID, s.Email, audit.InvitationAccepted, "%s accepted the invitation as %q", s.Email, inv.Role)
		d.redirectWithFlash(w, r, Prefix+"o/"+orgID+"/", "You joined this organization as "+inv.Role+".")
	}
}
