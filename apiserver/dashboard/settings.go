package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/text/correction"
)

// settingsData is the organization settings page's.
type settingsData struct {
	// Settings are the organization's settings as saved.
	Settings tcsv1.OrganizationSettings
	// TimeZones are the time zones to choose from; Categories the categories.
	TimeZones  []string
	Categories []string
}

func (d *Dashboard) settingsPage(w http.ResponseWriter, r *http.Request, v *view, status int) {
	data := &settingsData{TimeZones: orgs.TimeZones(), Categories: orgs.BuiltinCategories()}
	if s := v.Organization.Spec.Settings; s != nil {
		data.Settings = *s
	}
	if tz := data.Settings.TimeZone; tz != "" && !slices.Contains(data.TimeZones, tz) {
		data.TimeZones = append(data.TimeZones, tz)
	}
	// The categories of the organization's glossary, then any saved that are no longer there.
	g, err := (&glossary.Manager{Client: d.o.Client, Namespace: d.o.Namespace}).Get(r.Context(), v.Org.OrganizationID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	more := slices.Clone(data.Settings.Defaults.Categories)
	for _, e := range g.Entries {
		c := e.Category
		if c == "" {
			c = correction.CategoryGlossary
		}
		more = append(more, c)
	}
	for _, c := range more {
		if !slices.Contains(data.Categories, c) {
			data.Categories = append(data.Categories, c)
		}
	}
	v.Title, v.Data = "Settings", data
	d.render(w, r, status, "settings", v)
}

func (d *Dashboard) settings(w http.ResponseWriter, r *http.Request, v *view) {
	d.settingsPage(w, r, v, http.StatusOK)
}

// settingsForm reads the settings of the settings form.
func settingsForm(r *http.Request) tcsv1.OrganizationSettings {
	_ = r.ParseForm()
	s := tcsv1.OrganizationSettings{TimeZone: strings.TrimSpace(r.PostFormValue("time_zone"))}
	if s.TimeZone == "UTC" {
		s.TimeZone = ""
	}
	s.Defaults.NormalizeReferences = r.PostFormValue("normalize_references") == "on"
	s.Defaults.AIPass.Enabled = r.PostFormValue("ai_pass") == "on"
	s.Defaults.AIPass.Apply = s.Defaults.AIPass.Enabled && r.PostFormValue("ai_pass_apply") == "on"
	s.Defaults.Categories = r.PostForm["categories"]
	return s
}

func (d *Dashboard) saveSettings(w http.ResponseWriter, r *http.Request, v *view) {
	s := settingsForm(r)
	err := orgs.SetSettings(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID, s)
	var se *orgs.SettingsError
	if errors.As(err, &se) {
		v.Errors, v.Form = map[string]string{se.Field: se.Message}, r.PostForm
		d.settingsPage(w, r, v, http.StatusBadRequest)
		return
	}
	if errors.Is(err, orgs.ErrNotFound) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	tz := s.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.SettingsChanged,
		"%s set the time zone to %s and the defaults of new transcripts to: normalize references %t, AI pass %t (apply %t), categories %s",
		v.Session.Email, tz, s.Defaults.NormalizeReferences, s.Defaults.AIPass.Enabled, s.Defaults.AIPass.Apply, strings.Join(s.Defaults.Categories, ", "))
	d.redirect(w, r, v, "/settings", "Settings saved.")
}
