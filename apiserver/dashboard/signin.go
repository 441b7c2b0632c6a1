package dashboard

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"tcs.dev/tcs/internal/accounts"
)

// home sends a signed-in member to their first organization, anyone else to the sign-in page.
func (d *Dashboard) home(w http.ResponseWriter, r *http.Request) {
	s, err := d.session(r)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if s == nil {
		http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
		return
	}
	orgs, err := d.o.Accounts.Memberships(r.Context(), s.Email)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if want := r.URL.Query().Get("org"); want != "" {
		for _, o := range orgs {
			if o.OrganizationID == want {
				http.Redirect(w, r, Prefix+"o/"+o.OrganizationID+"/", http.StatusSeeOther)
				return
			}
		}
	}
	if len(orgs) == 0 {
		pending, err := d.o.Accounts.PendingInvitations(r.Context(), s.Email)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		if len(pending) > 0 {
			http.Redirect(w, r, Prefix+"invitations", http.StatusSeeOther)
			return
		}
		d.render(w, r, http.StatusOK, "error", &view{Session: s, Title: "No organization", Data: "You are not a member of any organization."})
		return
	}
	http.Redirect(w, r, Prefix+"o/"+orgs[0].OrganizationID+"/", http.StatusSeeOther)
}

func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "signin", &view{Title: "Sign in", Flash: d.takeFlash(w, r), Form: r.URL.Query()})
}

// safeNext returns next when it is a path of the dashboard, else the dashboard's root.
func safeNext(next string) string {
	if strings.HasPrefix(next, Prefix) && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return Prefix
}

func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	s, err := d.o.Accounts.SignIn(r.Context(), email, password)
	if err != nil {
		if errors.Is(err, accounts.ErrSignInFailed) {
			d.render(w, r, http.StatusUnauthorized, "signin", &view{Title: "Sign in",
				Errors: map[string]string{"password": "Sign-in failed: " + err.Error() + "."}, Form: r.PostForm})
			return
		}
		d.serverError(w, r, err)
		return
	}
	d.setCookie(w, s.Token, int(d.o.Accounts.SessionMax().Seconds()))
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (d *Dashboard) setCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value, Path: Prefix, MaxAge: maxAge,
		HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteLaxMode,
	})
}

func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	s, err := d.session(r)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if s != nil {
		if s.CSRF == "" || subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.CSRF)) != 1 {
			d.fail(w, r, http.StatusForbidden, "This form has expired. Go back, reload the page and try again.")
			return
		}
		if err := d.o.Accounts.SignOut(r.Context(), s.Token); err != nil {
			d.serverError(w, r, err)
			return
		}
	}
	d.setCookie(w, "", -1)
	d.redirectWithFlash(w, r, Prefix+"signin", "You are signed out.")
}
