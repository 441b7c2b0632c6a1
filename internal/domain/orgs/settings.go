package orgs

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"time"
	_ "time/tzdata" // the time zones without the system's zone files (the image has none)

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/text/correction"
)

// SettingsError is a setting that is refused; Field names it, Message says why in words
// for the person who gave it.
type SettingsError struct {
	Field, Message string
}

func (e *SettingsError) Error() string { return e.Message }

// categoryPattern is the pattern of a category name, as the Organization's CRD checks it.
var categoryPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Bounds of the settings, as the Organization's CRD checks them.
const (
	maxTimeZoneLength = 64
	maxCategories     = 32
	maxCategoryLength = 40
)

// ValidateSettings refuses settings the Organization would not take: a time zone that is not an
// IANA name time.LoadLocation knows (empty is UTC), or categories that are not names of at most
// 40 lowercase letters, digits, - and _ (at most 32 of them).
func ValidateSettings(s tcsv1.OrganizationSettings) error {
	if s.TimeZone != "" {
		if _, err := Location(s.TimeZone); err != nil {
			return &SettingsError{Field: "time_zone", Message: err.Error()}
		}
	}
	if len(s.Defaults.Categories) > maxCategories {
		return &SettingsError{Field: "categories", Message: fmt.Sprintf("At most %d categories can be chosen.", maxCategories)}
	}
	for _, c := range s.Defaults.Categories {
		if len(c) > maxCategoryLength || !categoryPattern.MatchString(c) {
			return &SettingsError{Field: "categories", Message: fmt.Sprintf("%q is not a category name (lowercase letters, digits, - and _).", c)}
		}
	}
	return nil
}

// Location returns the time zone of IANA name tz; empty is UTC. A name that is not one, or that
// is too long for the Organization to keep, is an error that says so.
func Location(tz string) (*time.Location, error) {
	if tz == "" {
		return time.UTC, nil
	}
	if len(tz) > maxTimeZoneLength || tz == "Local" {
		return nil, fmt.Errorf("%q is not a time zone name such as Europe/Berlin", tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("%q is not a time zone name such as Europe/Berlin", tz)
	}
	return loc, nil
}

// TimeZone returns the time zone of org: its setting, or UTC when it has none or one that
// time.LoadLocation no longer knows.
func TimeZone(org *tcsv1.Organization) *time.Location {
	if org == nil || org.Spec.Settings == nil {
		return time.UTC
	}
	loc, err := Location(org.Spec.Settings.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Defaults returns the options that a transcript of org made in the dashboard starts with:
// the organization's default options, or none.
func Defaults(org *tcsv1.Organization) tcsv1.TranscriptOptions {
	if org == nil || org.Spec.Settings == nil {
		return tcsv1.TranscriptOptions{}
	}
	d := org.Spec.Settings.Defaults
	return tcsv1.TranscriptOptions{
		NormalizeReferences: d.NormalizeReferences,
		AIPass:              d.AIPass,
		Categories:          slices.Clone(d.Categories),
	}
}

// SetSettings validates s and writes it as the settings of organization orgID: rereading the
// organization and writing again on a conflict, so that a change of its members meanwhile is
// kept. An empty or malformed orgID is ErrNoOrganization, an organization that does not exist
// ErrNotFound, refused settings a *SettingsError.
func SetSettings(ctx context.Context, c client.Client, namespace, orgID string, s tcsv1.OrganizationSettings) error {
	if err := CheckOrganization(orgID); err != nil {
		return fmt.Errorf("setting the settings of an organization: %w", err)
	}
	if err := ValidateSettings(s); err != nil {
		return err
	}
	s.Defaults.Categories = slices.Compact(slices.Sorted(slices.Values(s.Defaults.Categories)))
	if len(s.Defaults.Categories) == 0 {
		s.Defaults.Categories = nil
	}
	org := &tcsv1.Organization{}
	org.Namespace, org.Name = namespace, ObjectName(orgID)
	_, err := statuspatch.Update(ctx, c, c, retry.DefaultRetry, org, func() (bool, error) {
		if org.Spec.ID != orgID {
			return false, fmt.Errorf("organization %s: %w", orgID, ErrNotFound)
		}
		org.Spec.Settings = &s
		return true, nil
	})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("organization %s: %w", orgID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("setting the settings of organization %s: %w", orgID, err)
	}
	return nil
}

// Get returns organization orgID; one that does not exist is ErrNotFound.
func Get(ctx context.Context, c client.Reader, namespace, orgID string) (*tcsv1.Organization, error) {
	if err := CheckOrganization(orgID); err != nil {
		return nil, fmt.Errorf("reading an organization: %w", err)
	}
	org := &tcsv1.Organization{}
	err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ObjectName(orgID)}, org)
	if apierrors.IsNotFound(err) || err == nil && org.Spec.ID != orgID {
		return nil, fmt.Errorf("organization %s: %w", orgID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading organization %s: %w", orgID, err)
	}
	return org, nil
}

// TimeZones returns the time zones an organization chooses from, by IANA name: UTC and the
// zones of the places the service's customers are in, each one time.LoadLocation knows.
func TimeZones() []string {
	return []string{
		"UTC",
		"Africa/Accra", "Africa/Cairo", "Africa/Johannesburg", "Africa/Lagos", "Africa/Nairobi",
		"America/Anchorage", "America/Argentina/Buenos_Aires", "America/Bogota", "America/Chicago",
		"America/Denver", "America/Halifax", "America/Lima", "America/Los_Angeles", "America/Mexico_City",
		"America/New_York", "America/Phoenix", "America/Santiago", "America/Sao_Paulo", "America/St_Johns",
		"America/Toronto", "America/Vancouver",
		"Asia/Bangkok", "Asia/Dhaka", "Asia/Dubai", "Asia/Hong_Kong", "Asia/Jakarta", "Asia/Jerusalem",
		"Asia/Karachi", "Asia/Kolkata", "Asia/Manila", "Asia/Seoul", "Asia/Shanghai", "Asia/Singapore",
		"Asia/Tokyo",
		"Atlantic/Reykjavik",
		"Australia/Adelaide", "Australia/Brisbane", "Australia/Perth", "Australia/Sydney",
		"Europe/Amsterdam", "Europe/Athens", "Europe/Berlin", "Europe/Dublin", "Europe/Helsinki",
		"Europe/Istanbul", "Europe/Kyiv", "Europe/Lisbon", "Europe/London", "Europe/Madrid",
		"Europe/Moscow", "Europe/Oslo", "Europe/Paris", "Europe/Rome", "Europe/Stockholm",
		"Europe/Warsaw", "Europe/Zurich",
		"Pacific/Auckland", "Pacific/Fiji", "Pacific/Honolulu",
	}
}

// BuiltinCategories are the categories of the correction engine an organization's defaults
// choose from, besides those of its glossary.
func BuiltinCategories() []string {
	return []string{correction.CategoryBible, correction.CategoryPlace, correction.CategoryPerson}
}
