package orgs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestValidateSettings(t *testing.T) {
	many := make([]string, 33)
	for i := range many {
		many[i] = fmt.Sprintf("c%d", i)
	}
	for _, tc := range []struct {
		name  string
		s     tcsv1.OrganizationSettings
		field string // of the refusal; empty when accepted
	}{
		{"no settings", tcsv1.OrganizationSettings{}, ""},
		{"an IANA time zone", tcsv1.OrganizationSettings{TimeZone: "America/Argentina/Buenos_Aires"}, ""},
		{"a time zone that is not one", tcsv1.OrganizationSettings{TimeZone: "Mars/Olympus"}, "time_zone"},
		{"the machine's own zone", tcsv1.OrganizationSettings{TimeZone: "Local"}, "time_zone"},
		{"a path", tcsv1.OrganizationSettings{TimeZone: "../../etc/passwd"}, "time_zone"},
		{"categories", tcsv1.OrganizationSettings{Defaults: tcsv1.TranscriptDefaults{Categories: []string{"bible", "hymn_titles"}}}, ""},
		{"a category that is no name", tcsv1.OrganizationSettings{Defaults: tcsv1.TranscriptDefaults{Categories: []string{"Bible"}}}, "categories"},
		{"a category too long", tcsv1.OrganizationSettings{Defaults: tcsv1.TranscriptDefaults{Categories: []string{strings.Repeat("a", 41)}}}, "categories"},
		{"too many categories", tcsv1.OrganizationSettings{Defaults: tcsv1.TranscriptDefaults{Categories: many}}, "categories"},
	} {
		err := ValidateSettings(tc.s)
		var se *SettingsError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &se) || se.Field != tc.field):
			t.Errorf("%s: %v, want a refusal of %s", tc.name, err, tc.field)
		}
	}
}

func TestEveryTimeZoneOfTheListIsOne(t *testing.T) {
	seen := map[string]bool{}
	for _, tz := range TimeZones() {
		if _, err := Location(tz); err != nil || seen[tz] {
			t.Errorf("%s: %v (twice: %t)", tz, err, seen[tz])
		}
		seen[tz] = true
	}
}

func TestDefaultsAreTheOptionsOfTheSettings(t *testing.T) {
	if got := Defaults(nil); got.NormalizeReferences || got.AIPass.Enabled || got.Categories != nil {
		t.Errorf("no organization: %+v, want no options", got)
	}
	org := &tcsv1.Organization{Spec: tcsv1.OrganizationSpec{Settings: &tcsv1.OrganizationSettings{TimeZone: "Europe/Berlin",
		Defaults: tcsv1.TranscriptDefaults{NormalizeReferences: true, AIPass: tcsv1.AIPassOptions{Enabled: true}, Categories: []string{"place"}}}}}
	got := Defaults(org)
	if !got.NormalizeReferences || !got.AIPass.Enabled || got.AIPass.Apply || len(got.Categories) != 1 || got.Categories[0] != "place" {
		t.Errorf("defaults %+v, want those of the settings", got)
	}
	got.Categories[0] = "changed"
	if org.Spec.Settings.Defaults.Categories[0] != "place" {
		t.Error("changing the options returned changed the organization's settings")
	}
	if TimeZone(org).String() != "Europe/Berlin" || TimeZone(&tcsv1.Organization{}).String() != "UTC" {
		t.Errorf("time zones %s and %s, want Europe/Berlin and UTC", TimeZone(org), TimeZone(&tcsv1.Organization{}))
	}
}
