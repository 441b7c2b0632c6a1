package endpoints

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestValidateURL(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	for _, tc := range []struct {
		url   string
		allow []netip.Prefix
		want  string // in the error; empty means accepted
	}{
		{"https://hooks.example.org/tcs", nil, ""},
		{"https://127.0.0.1:8443/hook", loopback, ""},
		{"http://127.0.0.1:8080/hook", loopback, ""},
		{"", nil, "url is required"},
		{"   ", nil, "url is required"},
		{"ftp://hooks.example.org", nil, "scheme must be https"},
		{"https:///path", nil, "no host"},
		{"https://u:p@hooks.example.org", nil, "credentials"},
		{"http://hooks.example.org/x", nil, "http is allowed only"},
		{"http://93.184.216.34/x", nil, "http is allowed only"},
		{"http://127.0.0.1:8080/x", nil, "http is allowed only"},
		{"https://10.1.2.3/x", nil, "private"},
		{"https://169.254.169.254/latest", nil, "private"},
		{"https://[::1]/x", nil, "private"},
		{"https://127.0.0.1/x", nil, "private"},
		{"https://localhost/x", nil, "private"},
		{"https://2130706433/x", nil, "non-standard"},
		{"https://x.example/" + strings.Repeat("a", 2050), nil, "longer than"},
	} {
		err := ValidateURL(tc.url, tc.allow)
		var fe *FieldError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ValidateURL(%.40q) = %v, want accepted", tc.url, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ValidateURL(%.40q) = %v, want an error mentioning %q", tc.url, err, tc.want)
		case err != nil && (!errors.As(err, &fe) || fe.Field != "url"):
			t.Errorf("ValidateURL(%.40q) = %v, not a FieldError of url", tc.url, err)
		}
	}
}

func TestCreateAndEditRefuseEventTypesWithAFieldErrorOfEvents(t *testing.T) {
	// No client: the event types are checked before anything is read or written.
	m := &Manager{Namespace: "tcs-system"}
	ctx := context.Background()
	for _, tc := range []struct {
		events []string
		want   string
	}{
		{nil, "events is required"},
		{[]string{"transcript.created", "transcript.deleted"}, `unknown event type "transcript.deleted"`},
	} {
		_, _, createErr := m.Create(ctx, "org_a", "https://hooks.example.org/tcs", tc.events)
		editErr := m.Edit(ctx, nil, "https://hooks.example.org/tcs", tc.events)
		for what, err := range map[string]error{"Create": createErr, "Edit": editErr} {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "events" || !strings.Contains(fe.Message, tc.want) {
				t.Errorf("%s with events %q = %v, want a FieldError of events mentioning %q", what, tc.events, err, tc.want)
			}
		}
	}
}

func TestOrganizationScopedMethodsRefuseAnEmptyOrganizationBeforeReadingAnything(t *testing.T) {
	// No client: a method that read anything would panic.
	m := &Manager{Namespace: "tcs-system"}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"List", func() error { _, err := m.List(ctx, ""); return err }},
		{"Get", func() error { _, err := m.Get(ctx, "we_a", ""); return err }},
		{"Delivery", func() error { _, err := m.Delivery(ctx, "evt_a", ""); return err }},
		{"Deliveries of a transcript", func() error {
			_, err := m.Deliveries(ctx, DeliveryFilter{TranscriptID: "tr_a"})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrNoOrganization) {
				t.Fatalf("%s with no organization = %v, want ErrNoOrganization", tc.name, err)
			}
		})
	}
}
