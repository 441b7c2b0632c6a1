package dashboard

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/platform/ratelimit"
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

// Default rates of sign-in attempts, per minute. A person mistyping a password is far below
// them; an account is locked after 5 failures anyway (accounts.Options.LockAfter).
const (
	DefaultSignInsPerAddress = 20
	DefaultSignInsGlobal     = 300
)

// clientAddress is the address the attempts of someone not signed in are counted under: the IP
// address of the connection's peer or, when that peer is one of the trusted proxies, the
// nearest address of X-Forwarded-For that is not (read from the right, as each proxy appends
// the address it saw); IPv6 addresses are cut to their /64, the block one host usually holds.
// X-Forwarded-For from anyone else is ignored: a client could write anything in it.
func clientAddress(r *http.Request, trusted []netip.Prefix) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	a := ap.Addr().Unmap()
	if isTrusted(a, trusted) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0 && i >= len(hops)-maxForwardedHops; i-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // not written by a proxy we trust: what lies left of it is the client's word
			}
			a = hop.Unmap()
			if !isTrusted(a, trusted) {
				break
			}
		}
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// maxForwardedHops bounds the X-Forwarded-For entries clientAddress reads.
const maxForwardedHops = 16

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// anonymousAllowed counts an attempt of someone not signed in (a sign-in, a request for a reset
// link, the use of an emailed link) against the limit of its client address, then against the
// global one. It returns whether the attempt may go on and, when it may not, the seconds to wait
// (0 when the client left and nobody reads an answer). The address comes first, so that the
// attempts one address is refused do not spend the global limit of everyone. When the limiter's
// store is down, the attempt goes on, bounded by the password checks the process runs at once.
func (d *Dashboard) anonymousAllowed(r *http.Request) (ok bool, retryAfter int64) {
	for _, c := range []struct {
		key   string
		limit ratelimit.Limit
	}{
		{"signin:addr:" + clientAddress(r, d.o.TrustedProxies), d.o.SignInPerAddress},
		{"signin:all", d.o.SignInGlobal},
	} {
		res, err := d.o.Limiter.Allow(r.Context(), c.key, c.limit)
		if err != nil && r.Context().Err() != nil {
			return false, 0 // the client left
		}
		if err != nil {
			d.o.Log.Error(err, "sign-in rate limiter unavailable; attempt not counted", "key", c.key)
			return true, 0
		}
		if !res.Allowed {
			return false, res.RetryAfterSeconds()
		}
	}
	return true, 0
}

// signInAllowed counts a sign-in attempt (see anonymousAllowed) and answers 429 with the sign-in
// form when it is refused; it reports whether the attempt may go on.
func (d *Dashboard) signInAllowed(w http.ResponseWriter, r *http.Request) bool {
	ok, retryAfter := d.anonymousAllowed(r)
	if !ok && retryAfter > 0 {
		d.tooManySignIns(w, r, retryAfter)
	}
	return ok
}

// limitAnonymous runs h when the attempt is allowed (see anonymousAllowed), and answers 429
// otherwise.
func (d *Dashboard) limitAnonymous(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, retryAfter := d.anonymousAllowed(r)
		if ok {
			h(w, r)
			return
		}
		if retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(retryAfter, 10))
			d.fail(w, r, http.StatusTooManyRequests, "Too many attempts from your network at the moment: wait a minute and try again.")
		}
	}
}

// tooManySignIns answers 429 with the sign-in form, which says to try again after
// retryAfter seconds.
func (d *Dashboard) tooManySignIns(w http.ResponseWriter, r *http.Request, retryAfter int64) {
	w.Header().Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	d.render(w, r, http.StatusTooManyRequests, "signin", &view{Title: "Sign in",
		Errors: map[string]string{"password": "Too many sign-ins at the moment: try again in a moment."},
		Form:   url.Values{"email": {r.PostFormValue("email")}, "next": {r.PostFormValue("next")}}})
}

func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	if !d.signInAllowed(w, r) {
		return
	}
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	s, err := d.o.Accounts.SignIn(r.Context(), email, password)
	switch {
	case errors.Is(err, accounts.ErrSignInFailed):
		d.render(w, r, http.StatusUnauthorized, "signin", &view{Title: "Sign in",
			Errors: map[string]string{"password": "Sign-in failed: " + err.Error() + "."}, Form: r.PostForm})
		return
	case errors.Is(err, accounts.ErrBusy):
		d.tooManySignIns(w, r, 1)
		return
	case err != nil && r.Context().Err() != nil:
		// The client left while its sign-in waited: nobody reads an answer, and a flood of
		// those must not flood the log.
		return
	case err != nil:
		d.serverError(w, r, err)
		return
	}
	d.setCookie(w, s.Token, int(d.o.Accounts.SessionMax().Seconds()))
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (d *Dashboard) setCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: d.cookieName(), Value: value, Path: d.cookiePath(), MaxAge: maxAge,
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
