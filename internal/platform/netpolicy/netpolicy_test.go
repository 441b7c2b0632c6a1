package netpolicy

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// These tests send no traffic.

func TestCheckURL(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	public := []netip.Prefix{netip.MustParsePrefix("8.8.8.0/24")}
	long := "https://example.com/" + strings.Repeat("a", MaxWebhookURLLength)
	tests := []struct {
		url   string
		use   Use
		allow []netip.Prefix
		want  string // in the reason; empty means allowed
	}{
		// Allowed for both uses.
		{"https://example.com/sermon.txt", Fetch, nil, ""},
		{"https://example.com/hook", Webhook, nil, ""},
		{"HTTPS://Example.COM/a", Webhook, nil, ""},
		{"https://8.8.8.8/a", Webhook, nil, ""},
		{"https://127.0.0.1:8443/a", Webhook, loopback, ""},
		{"https://localhost:8443/a", Webhook, loopback, ""},
		{"https://1password.com/a", Fetch, nil, ""},
		{"https://0xdeadbeef.example.com/", Webhook, nil, ""},

		// The scheme: url sources may be http, webhooks only to a private IP literal the
		// allow-list permits.
		{"http://example.com/sermon.vtt", Fetch, nil, ""},
		{"http://8.8.8.8/a", Fetch, nil, ""},
		{"http://localhost:8080/a", Fetch, loopback, ""},
		{"http://127.0.0.1:8080/hook", Webhook, loopback, ""},
		{"http://[::ffff:127.0.0.1]:8080/hook", Webhook, loopback, ""},
		{"http://example.com/hook", Webhook, nil, "http is allowed only"},
		{"http://localhost:8080/hook", Webhook, loopback, "http is allowed only"},
		{"http://127.0.0.1:8080/hook", Webhook, nil, "http is allowed only"},
		{"http://8.8.8.8/hook", Webhook, nil, "http is allowed only"},
		{"http://8.8.8.8/hook", Webhook, public, "http is allowed only"}, // public: use https
		{"ftp://example.com/a", Fetch, nil, "only http and https"},
		{"ftp://example.com/a", Webhook, nil, "the scheme must be https"},
		{"javascript:alert(1)", Webhook, nil, "the scheme must be https"},
		{"file:///etc/passwd", Fetch, nil, "only http and https"},
		{"//example.com/a", Fetch, nil, "only http and https"},

		// The URL's form, for both uses.
		{"", Fetch, nil, "empty"},
		{"  ", Webhook, nil, "empty"},
		{"http://%zz/", Fetch, nil, "not valid"},
		{"https:///a", Webhook, nil, "no host"},
		{"https://user:pass@example.com/a", Webhook, nil, "credentials"},
		{"https://user@example.com/a", Fetch, nil, "credentials"},
		{long, Webhook, nil, "longer than 2048"},
		{long, Fetch, nil, ""},

		// The host, for both uses.
		{"https://10.1.2.3/a", Webhook, nil, "the address 10.1.2.3 is private/reserved"},
		{"http://10.1.2.3/a", Fetch, nil, "the address 10.1.2.3 is private/reserved"},
		{"https://169.254.169.254/latest/meta-data/", Fetch, nil, "private/reserved"},
		{"https://[fd00:ec2::254]/a", Webhook, nil, "private/reserved"},
		{"https://[fe80::1%25eth0]/a", Fetch, nil, "the address fe80::1 is private/reserved"},
		{"https://[::ffff:127.0.0.2]/a", Webhook, loopback, "the address 127.0.0.2 is private/reserved"},
		{"https://[::1]/a", Webhook, loopback, "private/reserved"},
		{"https://127.0.0.1/a", Webhook, nil, "private/reserved"},
		{"https://2130706433/a", Webhook, nil, "the host 2130706433 looks like an IP address in a non-standard form"},
		{"http://0x7f.0.0.2/a", Fetch, loopback, "non-standard form"},
		{"http://127.1/a", Fetch, loopback, "non-standard form"},
		{"http://0/a", Fetch, nil, "non-standard form"},
		{"https://localhost/a", Webhook, nil, "the host localhost is private/reserved"},
		{"http://LOCALHOST./a", Fetch, nil, "private/reserved"},
		{"https://app.localhost/a", Fetch, nil, "private/reserved"},
	}
	for _, tt := range tests {
		got := CheckURL(tt.url, tt.use, tt.allow)
		switch {
		case tt.want == "" && got != "":
			t.Errorf("CheckURL(%.60q, %v, %v) = %q, want allowed", tt.url, tt.use, tt.allow, got)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("CheckURL(%.60q, %v, %v) = %q, want a reason with %q", tt.url, tt.use, tt.allow, got, tt.want)
		}
	}
}

// TestCheckIsCheckURL shows that the check of a parsed URL, which the outbound client makes
// of every request and redirect, decides as CheckURL does.
func TestCheckIsCheckURL(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	for _, raw := range []string{
		"https://example.com/a", "http://example.com/a", "http://127.0.0.1/a", "http://127.0.0.2/a",
		"ftp://example.com/", "https://u@example.com/", "https://0177.0.0.1/", "https://localhost/",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, use := range []Use{Fetch, Webhook} {
			if got, want := Check(u, use, allow), CheckURL(raw, use, allow); got != want {
				t.Errorf("Check(%s, %v) = %q, CheckURL = %q", raw, use, got, want)
			}
		}
	}
	if got := Check(nil, Fetch, nil); got == "" {
		t.Error("Check(nil) allowed")
	}
}

func TestCheckDial(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	tests := []struct {
		network, address string
		want             string // in the reason; empty means allowed
	}{
		{"tcp4", "127.0.0.1:80", ""},
		{"tcp6", "[::ffff:127.0.0.1]:443", ""},
		{"tcp4", "8.8.8.8:443", ""},
		{"tcp", "[2606:4700:4700::1111]:443", ""},
		{"tcp4", "127.0.0.2:80", "the address 127.0.0.2 is private/reserved"},
		{"tcp6", "[::ffff:127.0.0.2]:443", "the address 127.0.0.2 is private/reserved"},
		{"tcp6", "[::1]:80", "the address ::1 is private/reserved"},
		{"tcp6", "[fe80::1%eth0]:80", "the address fe80::1 is private/reserved"},
		{"tcp4", "0.0.0.0:80", "private/reserved"},
		{"tcp4", "169.254.169.254:80", "private/reserved"},
		{"tcp4", "10.0.0.1:443", "private/reserved"},
		{"udp4", "8.8.8.8:53", `the network "udp4" is not allowed`},
		{"tcp", "example.com:80", `the address "example.com:80" is not an IP address`},
	}
	for _, tt := range tests {
		got := CheckDial(tt.network, tt.address, allow)
		switch {
		case tt.want == "" && got != "":
			t.Errorf("CheckDial(%q, %q) = %q, want allowed", tt.network, tt.address, got)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("CheckDial(%q, %q) = %q, want a reason with %q", tt.network, tt.address, got, tt.want)
		}
	}
}
